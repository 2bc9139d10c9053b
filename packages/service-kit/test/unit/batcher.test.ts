import { createBatcher } from '../../src';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createBatcher', () => {
  test('when items arrive while a batch runs, then they form the next batch, in order, and each caller gets its own outcome', async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const batcher = createBatcher<number, string>({
      maxItems: 10,
      maxWaitMs: 1,
      async run(items) {
        batches.push(items);
        if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return items.map((item) => (item === 4 ? new Error('four failed') : `done ${item}`));
      },
    });
    const first = batcher.add(1);
    await sleep(20); // the first batch is running
    const later = [2, 3, 4, 5].map((item) => batcher.add(item));
    await sleep(20);
    expect(batches).toEqual([[1]]);
    release();
    await expect(first).resolves.toBe('done 1');
    const outcomes = await Promise.allSettled(later);
    expect(batches).toEqual([[1], [2, 3, 4, 5]]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((outcomes[2] as PromiseRejectedResult).reason).toEqual(new Error('four failed'));
  });

  test('when more than maxItems wait, then batches hold at most maxItems; a batch that throws fails only its own items', async () => {
    const batches: number[][] = [];
    const batcher = createBatcher<number, number>({
      maxItems: 3,
      maxWaitMs: 50,
      async run(items) {
        batches.push(items);
        if (items.includes(4)) throw new Error('database away');
        return items;
      },
    });
    const outcomes = await Promise.allSettled([1, 2, 3, 4, 5, 6, 7].map((n) => batcher.add(n)));
    expect(batches).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
  });
});
