import { Writable } from 'node:stream';
import { createLogger } from '../../src';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

describe('createLogger', () => {
  test('when a token, secret, channel credential or authorization header is logged, then its value is redacted', () => {
    const { lines, stream } = capture();
    const logger = createLogger('test', 'info', stream);
    logger.info(
      {
        token: 'tok-value',
        webhook: { secret: 'whsec_value' },
        channel: { verify_token: 'vt-value', inbound_token: 'in-value', app_secret: 'as-value' },
        req: { headers: { authorization: 'Bearer abc', 'x-internal-secret': 'shared-value' } },
      },
      'something happened',
    );
    const line = lines.join('');
    for (const value of [
      'tok-value',
      'whsec_value',
      'Bearer abc',
      'shared-value',
      'vt-value',
      'in-value',
      'as-value',
    ]) {
      expect(line).not.toContain(value);
    }
    expect(JSON.parse(line)).toMatchObject({ service: 'test', msg: 'something happened' });
  });
});
