import { EndpointGate } from '../../src/domain/endpoint-gate';

describe('EndpointGate', () => {
  let now = 0;
  const gate = () =>
    new EndpointGate({ concurrency: 2, slowAfterMs: 500, maxWaitMs: 5_000, now: () => now });

  beforeEach(() => {
    now = 0;
    jest.useFakeTimers();
  });
  afterEach(() => jest.useRealTimers());

  test('when slots are free, then entering is immediate, per endpoint', async () => {
    const g = gate();
    expect(await g.enter('a')).toBeInstanceOf(Function);
    expect(await g.enter('a')).toBeInstanceOf(Function);
    expect(await g.enter('b')).toBeInstanceOf(Function);
    expect(g.inFlight('a')).toBe(2);
  });

  test('when the endpoint is busy but fast, then the next delivery waits and gets the slot released', async () => {
    const g = gate();
    const first = (await g.enter('a'))!;
    await g.enter('a');
    const waiting = g.enter('a');
    now = 100;
    first();
    expect(await waiting).toBeInstanceOf(Function);
    expect(g.inFlight('a')).toBe(2);
  });

  test('when the oldest request turns slow, then waiting deliveries are told to go away', async () => {
    const g = gate();
    await g.enter('a');
    await g.enter('a');
    const waiting = g.enter('a');
    now = 501;
    jest.advanceTimersByTime(502);
    expect(await waiting).toBeUndefined();
    // And newcomers are turned away at once while it stays slow.
    expect(await g.enter('a')).toBeUndefined();
    expect(await g.enter('b')).toBeInstanceOf(Function);
  });

  test('when a delivery must wait, then it is never turned away', async () => {
    const g = gate();
    const first = (await g.enter('a'))!;
    await g.enter('a');
    now = 10_000;
    const waiting = g.enter('a', true);
    jest.advanceTimersByTime(10_000);
    first();
    expect(await waiting).toBeInstanceOf(Function);
  });

  test('when a slot is released twice, then it counts once', async () => {
    const g = gate();
    const release = (await g.enter('a'))!;
    release();
    release();
    expect(g.inFlight('a')).toBe(0);
  });
});
