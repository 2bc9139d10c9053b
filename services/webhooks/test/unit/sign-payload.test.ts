import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { bodySignature, deliveryHeaders, standardSignature } from '../../src/domain/sign-payload';

// The published Standard Webhooks test vector.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const MESSAGE_ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TIMESTAMP = 1614265330;
const PAYLOAD = Buffer.from('{"test": 2432232314}');

describe('signatures', () => {
  test('when the body is signed, then X-Webhook-Signature is the lowercase hex HMAC keyed with the whole secret string', () => {
    const expected = createHmac('sha256', SECRET).update(PAYLOAD).digest('hex');
    expect(bodySignature(SECRET, PAYLOAD)).toBe(expected);
    expect(bodySignature(SECRET, PAYLOAD)).toMatch(/^[0-9a-f]{64}$/);
  });

  test('when the Standard Webhooks signature is made, then it matches the published test vector', () => {
    expect(standardSignature(SECRET, MESSAGE_ID, TIMESTAMP, PAYLOAD)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  test('when all headers are made, then the standardwebhooks library verifies them and rejects a changed body', () => {
    const body = Buffer.from(
      '{"event":"message_sent","timestamp":"2026-11-22T10:00:00+00:00","data":{}}',
    );
    const headers = deliveryHeaders({
      secret: SECRET,
      messageId: 'evt-1',
      event: 'message_sent',
      body,
      now: new Date(),
    });
    expect(headers).toMatchObject({
      'Content-Type': 'application/json',
      'X-Webhook-Event': 'message_sent',
      'X-Webhook-Id': 'evt-1',
      'webhook-id': 'evt-1',
      'X-Webhook-Signature': bodySignature(SECRET, body),
    });
    const verifier = new Webhook(SECRET);
    const standard = {
      'webhook-id': headers['webhook-id']!,
      'webhook-timestamp': headers['webhook-timestamp']!,
      'webhook-signature': headers['webhook-signature']!,
    };
    expect(verifier.verify(body.toString(), standard)).toMatchObject({ event: 'message_sent' });
    expect(() =>
      verifier.verify(body.toString().replace('message_sent', 'message_failed'), standard),
    ).toThrow();
  });

  test('when the attempt is old, then a Standard Webhooks receiver refuses it as a replay', () => {
    const body = Buffer.from('{}');
    const old = deliveryHeaders({
      secret: SECRET,
      messageId: 'evt-2',
      event: 'message_sent',
      body,
      now: new Date(Date.now() - 10 * 60_000),
    });
    expect(() =>
      new Webhook(SECRET).verify('{}', {
        'webhook-id': old['webhook-id']!,
        'webhook-timestamp': old['webhook-timestamp']!,
        'webhook-signature': old['webhook-signature']!,
      }),
    ).toThrow(/timestamp/i);
  });
});
