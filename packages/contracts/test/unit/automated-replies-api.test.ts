import {
  AddAutomatedReplyRequestSchema,
  BROKER_TOPOLOGY,
  QUEUES,
  UpdateAutomatedReplyRequestSchema,
} from '../../src';

describe('automated replies requests', () => {
  test('when triggers come as a comma-separated string, a JSON text or an array, then they become the same trimmed list without repeats', () => {
    const base = { name: 'n', kind: 'contains', message: 'x' };
    for (const triggers of ['hi, hello ,hi,', '["hi","hello"]', ['hi', ' hello', 'hi']]) {
      expect(AddAutomatedReplyRequestSchema.parse({ ...base, triggers }).triggers).toEqual([
        'hi',
        'hello',
      ]);
    }
  });

  test('when a reply is added, then active defaults to true and buttons given as titles get ids', () => {
    const parsed = AddAutomatedReplyRequestSchema.parse({
      name: 'n',
      kind: 'welcome',
      message: 'x',
      buttons: 'Menu, Hours',
    });
    expect(parsed.active).toBe(true);
    expect(parsed.buttons).toEqual([
      { id: 'Menu', title: 'Menu' },
      { id: 'Hours', title: 'Hours' },
    ]);
  });

  test('when an update gives a welcome kind with triggers, or an exact kind with none, then it is refused', () => {
    expect(
      UpdateAutomatedReplyRequestSchema.safeParse({ id: 1, kind: 'welcome', triggers: 'a' })
        .success,
    ).toBe(false);
    expect(
      UpdateAutomatedReplyRequestSchema.safeParse({ id: 1, kind: 'exact', triggers: [] }).success,
    ).toBe(false);
    expect(UpdateAutomatedReplyRequestSchema.safeParse({ id: '7', active: '0' }).data).toEqual({
      id: 7,
      active: false,
    });
  });

  test('when the topology is read, then message_received reaches campaigns on a queue of its own with retry and dead queues', () => {
    const names = BROKER_TOPOLOGY.filter((item) => item.kind === 'queue').map((item) => item.name);
    expect(names).toEqual(
      expect.arrayContaining([
        QUEUES.campaignsAutomation,
        `${QUEUES.campaignsAutomation}.retry`,
        `${QUEUES.campaignsAutomation}.dead`,
      ]),
    );
    const bindings = BROKER_TOPOLOGY.filter(
      (item) => item.kind === 'binding' && item.queue === QUEUES.campaignsAutomation,
    );
    expect(bindings).toEqual([
      {
        kind: 'binding',
        exchange: 'svc.events',
        queue: QUEUES.campaignsAutomation,
        routingKey: 'message_received',
      },
    ]);
  });
});
