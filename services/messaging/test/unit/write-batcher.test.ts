import { createWriteBatcher } from '../../src/data-access/write-batcher';

function deferred() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('createWriteBatcher', () => {
  test('when items arrive while a write is in flight, then they all go in the next write, and each caller settles with its own batch', async () => {
    const writes: number[][] = [];
    const gates = [deferred(), deferred()];
    const batcher = createWriteBatcher<number>((items) => {
      writes.push(items);
      return gates[writes.length - 1]!.promise;
    });
    const settled: number[] = [];
    const first = batcher.add(1).then(() => settled.push(1));
    const later = [2, 3, 4].map((n) => batcher.add(n).then(() => settled.push(n)));
    expect(writes).toEqual([[1]]);

    gates[0]!.resolve();
    await first;
    expect(settled).toEqual([1]);
    expect(writes).toEqual([[1], [2, 3, 4]]);

    gates[1]!.resolve();
    await Promise.all(later);
    expect(settled).toEqual([1, 2, 3, 4]);
  });

  test('when a write fails, then its callers get the error and the next batch is still written', async () => {
    const writes: number[][] = [];
    const gate = deferred();
    const batcher = createWriteBatcher<number>(async (items) => {
      writes.push(items);
      if (items.includes(1)) {
        await gate.promise;
        throw new Error('database gone');
      }
    });
    const failed = batcher.add(1);
    const next = batcher.add(2);
    gate.resolve();
    await expect(failed).rejects.toThrow('database gone');
    await expect(next).resolves.toBeUndefined();
    expect(writes).toEqual([[1], [2]]);
  });

  test('when more items wait than a batch takes, then the rest go in the following write, in order', async () => {
    const writes: number[][] = [];
    const gate = deferred();
    const batcher = createWriteBatcher<number>(async (items) => {
      writes.push(items);
      if (writes.length === 1) await gate.promise;
    }, 2);
    const all = [1, 2, 3, 4, 5].map((n) => batcher.add(n));
    gate.resolve();
    await Promise.all(all);
    expect(writes).toEqual([[1], [2, 3], [4, 5]]);
    await batcher.drain();
  });
});

describe('createWriteBatcher with a spacing', () => {
  test('when idle, then an item is written at once; under load, then items gather until the next write is due and share it', async () => {
    const writes: { items: number[]; at: number }[] = [];
    const batcher = createWriteBatcher<number>(
      async (items) => {
        writes.push({ items, at: Date.now() });
      },
      { spacingMs: 200 },
    );
    const first = batcher.add(1);
    // Written at once, not behind a timer.
    expect(writes).toHaveLength(1);
    await first;

    const later = [2, 3, 4].map((n) => batcher.add(n));
    expect(writes).toHaveLength(1);
    await Promise.all(later);
    expect(writes.map((write) => write.items)).toEqual([[1], [2, 3, 4]]);
    expect(writes[1]!.at - writes[0]!.at).toBeGreaterThanOrEqual(190);
  });

  test('when drained, then what waits for its turn is written at once', async () => {
    const writes: number[][] = [];
    const batcher = createWriteBatcher<number>(
      async (items) => {
        writes.push(items);
      },
      { spacingMs: 60_000 },
    );
    await batcher.add(1);
    const second = batcher.add(2);
    await batcher.drain();
    await second;
    expect(writes).toEqual([[1], [2]]);
  });
});
