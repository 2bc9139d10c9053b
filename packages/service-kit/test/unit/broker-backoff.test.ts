import { reconnectDelayMs } from '../../src/broker';

const range = { min: 100, max: 1_000 };
const highest = () => 0.999_999;
const lowest = () => 0;

describe('reconnectDelayMs', () => {
  test('when it is the first attempt, then the delay is the minimum whatever the jitter', () => {
    expect(reconnectDelayMs(1, range, highest)).toBe(100);
    expect(reconnectDelayMs(1, range, lowest)).toBe(100);
  });

  test('when attempts follow each other, then the ceiling doubles until it reaches the maximum', () => {
    const ceilings = [1, 2, 3, 4, 5, 6].map((attempt) => reconnectDelayMs(attempt, range, highest));
    expect(ceilings).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  test('when jitter is drawn, then the delay lies between the minimum and that attempt’s ceiling', () => {
    expect(reconnectDelayMs(3, range, lowest)).toBe(100);
    expect(reconnectDelayMs(3, range, () => 0.5)).toBe(250);
    for (let i = 0; i < 200; i++) {
      const delay = reconnectDelayMs(4, range);
      expect(delay).toBeGreaterThanOrEqual(100);
      expect(delay).toBeLessThanOrEqual(800);
    }
  });

  test('when the attempts run very high or start at zero, then the delay stays finite and in range', () => {
    expect(reconnectDelayMs(10_000, range, highest)).toBe(1_000);
    expect(reconnectDelayMs(0, range, highest)).toBe(100);
  });
});
