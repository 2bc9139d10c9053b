import { z } from 'zod';
import { PermanentError } from '../../src/broker';
import { decideOutcome } from '../../src/broker/decide-outcome';

const schema = z.object({ n: z.number() });
const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));
const decide = (content: Buffer, handle: () => Promise<void>, attempt = 1) =>
  decideOutcome(content, { schema, attempt, maxAttempts: 3, handle });
const succeed = async () => undefined;

describe('decideOutcome', () => {
  test('when the body is not JSON, then it is parked without calling the handler', async () => {
    const handle = jest.fn(succeed);
    const outcome = await decide(Buffer.from('{nope'), handle);
    expect(outcome).toMatchObject({
      action: 'park',
      reason: expect.stringMatching(/^unparsable JSON/),
    });
    expect(handle).not.toHaveBeenCalled();
  });

  test('when the body fails the schema, then it is parked with the offending field', async () => {
    const handle = jest.fn(succeed);
    const outcome = await decide(bytes({ n: 'one' }), handle);
    expect(outcome).toMatchObject({
      action: 'park',
      reason: expect.stringMatching(/^invalid message: n: /),
    });
    expect(handle).not.toHaveBeenCalled();
  });

  test('when the handler resolves, then the message is acked', async () => {
    expect(await decide(bytes({ n: 1 }), succeed)).toEqual({ action: 'ack' });
  });

  test('when the handler throws a PermanentError, then it is parked with its reason at once', async () => {
    const fail = async () => {
      throw new PermanentError('contact 42 does not exist', { reason: 'unknown_contact' });
    };
    expect(await decide(bytes({ n: 1 }), fail)).toMatchObject({
      action: 'park',
      reason: 'unknown_contact',
    });
  });

  test('when the handler throws anything else, then it is retried until the last attempt parks it', async () => {
    const fail = async () => {
      throw new Error('database unavailable');
    };
    expect(await decide(bytes({ n: 1 }), fail, 2)).toMatchObject({
      action: 'retry',
      reason: 'database unavailable',
    });
    expect(await decide(bytes({ n: 1 }), fail, 3)).toMatchObject({
      action: 'park',
      reason: 'database unavailable',
    });
  });
});
