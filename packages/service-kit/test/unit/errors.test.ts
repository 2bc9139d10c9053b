import { AppError } from '../../src/errors';
import { errorBody } from '../../src/http/error-middleware';

describe('AppError', () => {
  test('when an error is given a reason, then the code that catches it reads the reason, and the answer a client gets carries the code without it', () => {
    const error = new AppError('conflict', 'Still running elsewhere', {
      reason: 'send_in_progress',
      details: { retry_after_seconds: 1 },
    });

    expect(error.reason).toBe('send_in_progress');
    expect(error.httpStatus).toBe(409);
    expect(errorBody(error)).toEqual({
      status: 'error',
      code: 'conflict',
      message: 'Still running elsewhere',
      retry_after_seconds: 1,
    });
  });

  test('when an error is given no reason, then its reason is undefined', () => {
    expect(new AppError('not_found', 'No such thing').reason).toBeUndefined();
  });
});
