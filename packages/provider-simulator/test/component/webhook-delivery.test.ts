import type { TestSimulator } from './support/test-simulator';
import { CHANNEL, startTestSimulator } from './support/test-simulator';

describe('webhook delivery to the receiver', () => {
  let t: TestSimulator;
  afterEach(() => t.stop());

  const inject = () =>
    t.control('POST', '/inbound', {
      phone_number_id: CHANNEL.phone_number_id,
      from: '16505551234',
      text: 'hi',
    });

  it('when the receiver answers 500 then 200, then the same signed bytes are posted again', async () => {
    t = await startTestSimulator({ statusDelaysMs: [] });
    t.receiver.answers = [500];

    const answer = await inject();

    expect(answer.body.webhook).toMatchObject({
      state: 'delivered',
      attempts: 2,
      response_status: 200,
    });
    const [first, second] = t.receiver.received;
    expect(first!.raw).toBe(second!.raw);
    expect(first!.signature).toBe(second!.signature);
    const log = await t.control('GET', '/webhooks?field=messages');
    expect(log.body.webhooks[0].attempts.map((a: { status: number }) => a.status)).toEqual([
      500, 200,
    ]);
  });

  it('when the receiver never answers 200, then delivery gives up after the bounded retries', async () => {
    t = await startTestSimulator({ statusDelaysMs: [] });
    t.receiver.answers = [503, 503, 503, 503];

    const answer = await inject();

    expect(answer.body.webhook).toMatchObject({
      state: 'failed',
      attempts: 3,
      response_status: 503,
    });
  });

  it('when the receiver is down, then the simulator keeps answering and records the failure', async () => {
    t = await startTestSimulator({ statusDelaysMs: [10] });
    await t.receiver.stop();

    const sent = await t.graph('POST', `/v23.0/${CHANNEL.phone_number_id}/messages`, {
      messaging_product: 'whatsapp',
      to: '16505551234',
      type: 'text',
      text: { body: 'anyone there?' },
    });
    const injected = await inject();

    expect(sent.status).toBe(200);
    expect(injected.body.webhook).toMatchObject({
      state: 'failed',
      attempts: 3,
      error: expect.any(String),
    });
    expect((await t.control('GET', '/channels')).status).toBe(200);
  });
});
