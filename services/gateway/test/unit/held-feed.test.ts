import { createHeldFeed } from '../../src/domain/held-feed';

/** A feed batch as the writer publishes it: ids `first`… in a row, organizations in turn. */
function batch(first: number, companies: number[]): [Buffer, number, number] {
  const entries = companies.map((company_id, index) => ({
    seq: first + index,
    company_id,
    event: 'message_sent',
    body: JSON.stringify({ n: first + index }),
  }));
  return [Buffer.from(JSON.stringify({ entries })), first, first + companies.length - 1];
}

const seqs = (feed: ReturnType<typeof createHeldFeed>, company: number, after: number) =>
  [...feed.eventsAfter(company, after)].map((entry) => entry.seq);

describe('the feed a replica holds', () => {
  test('when batches came, then an organization resumes with its own events after its id, and ids beyond the last seen are not held', () => {
    const feed = createHeldFeed({ retentionMs: 60_000, maxEvents: 100 });
    feed.add(...batch(11, [1, 2, 1]), 0);
    feed.add(...batch(14, [2, 1]), 0);
    expect(feed.tail).toBe(15);
    expect(seqs(feed, 1, 11)).toEqual([13, 15]);
    expect(seqs(feed, 2, 10)).toEqual([12, 14]);
    expect(feed.holdsAfter(10, 0)).toBe(true);
    expect(feed.holdsAfter(15, 0)).toBe(true);
    expect(feed.holdsAfter(16, 0)).toBe(false);
    // Before the first batch this replica received: it cannot know what came then.
    expect(feed.holdsAfter(9, 0)).toBe(false);
  });

  test('when batches are older than the retention or past the count, then they are dropped and an id before them is not held', () => {
    const feed = createHeldFeed({ retentionMs: 1_000, maxEvents: 4 });
    feed.add(...batch(1, [1, 1]), 0);
    feed.add(...batch(3, [1, 1]), 500);
    expect(feed.holdsAfter(0, 500)).toBe(true);
    feed.add(...batch(5, [1]), 600);
    // Five events held past a limit of four: the oldest batch goes whole.
    expect(feed.holdsAfter(0, 600)).toBe(false);
    expect(feed.holdsAfter(2, 600)).toBe(true);
    expect(seqs(feed, 1, 0)).toEqual([3, 4, 5]);
    expect(feed.holdsAfter(2, 1_550)).toBe(false);
    expect(feed.holdsAfter(4, 1_550)).toBe(true);
  });

  test('when the feed was lost, then nothing held is trusted until the next batch, and ids from before the loss reset', () => {
    const feed = createHeldFeed({ retentionMs: 60_000, maxEvents: 100 });
    feed.add(...batch(1, [1, 1]), 0);
    feed.forget();
    expect(feed.holdsAfter(2, 0)).toBe(false);
    feed.add(...batch(7, [1]), 0);
    expect(feed.holdsAfter(2, 0)).toBe(false);
    expect(feed.holdsAfter(6, 0)).toBe(true);
    expect(seqs(feed, 1, 6)).toEqual([7]);
  });
});
