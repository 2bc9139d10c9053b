import { shardKeyViolations } from '../../src';

describe('shardKeyViolations', () => {
  const key = { company_id: 1, _id: 1 };

  test('when a unique index starts with the whole shard key, or is the _id index, then nothing is reported', () => {
    expect(
      shardKeyViolations(key, [
        { name: '_id_', key: { _id: 1 } },
        {
          name: 'company_id_1__id_1_wamid_1',
          key: { company_id: 1, _id: 1, wamid: 1 },
          unique: true,
        },
        { name: 'wamid_1', key: { wamid: 1 } },
      ]),
    ).toEqual([]);
  });

  test('when a unique index lacks the shard key, or has only part of it, or in another order, then each is reported', () => {
    const violations = shardKeyViolations(key, [
      { name: 'wamid_1', key: { wamid: 1 }, unique: true },
      { name: 'company_id_1_wamid_1', key: { company_id: 1, wamid: 1 }, unique: true },
      { name: '_id_1_company_id_1', key: { _id: 1, company_id: 1 }, unique: true },
    ]);
    expect(violations).toHaveLength(3);
    expect(violations[0]).toContain('wamid_1');
  });
});
