import { judgeAttempt } from '../../src/domain/judge-attempt';

const answered = (status: number, note?: string) =>
  ({ kind: 'response', status, body: 'b', durationMs: 12, note }) as const;
const failed = (failure: 'timeout' | 'connection' | 'blocked') =>
  ({ kind: 'failure', failure, message: `${failure} happened`, durationMs: 5 }) as const;

describe('judgeAttempt', () => {
  test.each([
    [200, true, 'succeeded'],
    [204, false, 'succeeded'],
    [500, true, 'retrying'],
    [503, false, 'failed'],
    [301, true, 'failed'],
    [400, true, 'failed'],
    [408, true, 'failed'],
    [429, true, 'failed'],
    [410, true, 'failed'],
  ] as const)(
    'when the receiver answers %i with attempts left %s, then the state is %s',
    (status, left, state) => {
      expect(judgeAttempt(answered(status), left).state).toBe(state);
    },
  );

  test('when the receiver answers 410, then the webhook is to be paused', () => {
    expect(judgeAttempt(answered(410), true)).toMatchObject({ gone: true, response_status: 410 });
    expect(judgeAttempt(answered(404), true).gone).toBe(false);
  });

  test.each([
    ['timeout', true, 'retrying'],
    ['connection', true, 'retrying'],
    ['connection', false, 'failed'],
    ['blocked', true, 'failed'],
  ] as const)(
    'when the attempt fails with %s (attempts left %s), then the state is %s',
    (kind, left, state) => {
      expect(judgeAttempt(failed(kind), left)).toEqual({
        state,
        gone: false,
        response_status: null,
        response_body: null,
        error: `${kind} happened`,
        duration_ms: 5,
      });
    },
  );

  test('when a 2xx body was cut off, then it still succeeds and the note is kept as the error text', () => {
    expect(judgeAttempt(answered(200, 'response body cut off'), true)).toMatchObject({
      state: 'succeeded',
      error: 'response body cut off',
    });
  });
});
