import {
  RECEIVE_BATCH_MAX_BYTES,
  RECEIVE_BATCH_MAX_ITEMS,
  RECEIVE_BATCH_MAX_WEBHOOK_BYTES,
  ReceiveBatchRequestSchema,
  ReceiveBatchResponseSchema,
} from '../../src';

const webhook = (bytes: number, token = 'a'.repeat(43)) => ({
  token,
  signature: 'sha256=' + 'ab'.repeat(32),
  body: Buffer.alloc(bytes, '{').toString('base64'),
});

describe("inbound's batch of webhooks (gateway → inbound)", () => {
  test('when webhooks are sent with their tokens, signatures and bytes, then the batch is accepted as sent', () => {
    const batch = { webhooks: [webhook(900), { token: 'b'.repeat(43), body: 'e30=' }] };
    expect(ReceiveBatchRequestSchema.parse(batch)).toEqual(batch);
  });

  test.each([
    ['no webhook', { webhooks: [] }],
    [
      'too many webhooks',
      { webhooks: Array.from({ length: RECEIVE_BATCH_MAX_ITEMS + 1 }, () => webhook(10)) },
    ],
    [
      'a webhook over the largest a batch carries',
      { webhooks: [webhook(RECEIVE_BATCH_MAX_WEBHOOK_BYTES + 3)] },
    ],
    ['a token that is a path', { webhooks: [webhook(10, '../internal/info')] }],
    ['a body that is not base64', { webhooks: [{ token: 'a', body: '{"object":1}' }] }],
  ])('when the batch has %s, then it is refused', (_case, batch) => {
    expect(ReceiveBatchRequestSchema.safeParse(batch).success).toBe(false);
  });

  test('when the largest batch is written as JSON, then it fits the batch size limit', () => {
    const largest = {
      webhooks: Array.from({ length: RECEIVE_BATCH_MAX_ITEMS }, () =>
        webhook(RECEIVE_BATCH_MAX_WEBHOOK_BYTES),
      ),
    };
    expect(ReceiveBatchRequestSchema.safeParse(largest).success).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(largest))).toBeLessThanOrEqual(RECEIVE_BATCH_MAX_BYTES);
  });

  test('when inbound answers, then each result is a success or an error envelope with a 4xx/5xx status', () => {
    const answer = {
      status: 'success',
      results: [
        { status: 200, body: { status: 'success' } },
        { status: 403, body: { status: 'error', code: 'forbidden', message: 'Invalid signature' } },
      ],
    };
    expect(ReceiveBatchResponseSchema.parse(answer)).toEqual(answer);
    for (const result of [
      { status: 200, body: { status: 'error', code: 'x', message: 'x' } },
      { status: 302, body: { status: 'error', code: 'x', message: 'x' } },
      { status: 500, body: { status: 'success' } },
    ]) {
      expect(
        ReceiveBatchResponseSchema.safeParse({ status: 'success', results: [result] }).success,
      ).toBe(false);
    }
  });
});
