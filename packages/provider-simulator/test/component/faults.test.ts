import type { TestSimulator } from './support/test-simulator';
import { CHANNEL, startTestSimulator, textMessage } from './support/test-simulator';

const USER = '16505551234';

describe('fault injection with POST /sim/faults', () => {
  let t: TestSimulator;
  beforeEach(async () => {
    t = await startTestSimulator();
  });
  afterEach(() => t.stop());

  const send = (to = USER) =>
    t.graph('POST', `/v23.0/${CHANNEL.phone_number_id}/messages`, textMessage(to, 'hi'));

  it('when a rule sets an error code for one send, then that send fails with it and the next succeeds', async () => {
    const created = await t.control('POST', '/faults', {
      phone_number_id: CHANNEL.phone_number_id,
      to: `+${USER}`,
      error_code: 131048,
      count: 1,
    });
    expect(created.status).toBe(201);

    const failed = await send();
    const next = await send();

    expect(failed.status).toBe(400);
    expect(failed.body.error).toMatchObject({
      code: 131048,
      message: '(#131048) Spam rate limit hit',
    });
    expect(next.status).toBe(200);
  });

  it('when a rule only matches another recipient, then this send is unaffected', async () => {
    await t.control('POST', '/faults', { to: '15550001111', error_code: 131026 });

    expect((await send()).status).toBe(200);
    expect((await send('15550001111')).body.error.code).toBe(131026);
  });

  it('when a rule asks for HTTP 503, then the send answers 503 with a Graph error body', async () => {
    await t.control('POST', '/faults', { http_status: 503, count: 1 });

    const answer = await send();

    expect(answer.status).toBe(503);
    expect(answer.body.error).toMatchObject({ code: 2, type: 'OAuthException' });
  });

  it('when a rule gives a raw body, then the send answers it as is', async () => {
    await t.control('POST', '/faults', {
      http_status: 502,
      body: '<html>Bad Gateway</html>',
      count: 1,
    });

    const answer = await send();

    expect(answer.status).toBe(502);
    expect(answer.text).toBe('<html>Bad Gateway</html>');
  });

  it('when a rule adds latency, then the answer comes that much later and still succeeds', async () => {
    await t.control('POST', '/faults', { latency_ms: 300, count: 1 });

    const startedAt = Date.now();
    const answer = await send();

    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
    expect(answer.status).toBe(200);
  });

  it('when a rule fails sends asynchronously with 131047, then the send is accepted and a failed status follows', async () => {
    await t.control('POST', '/faults', { async_error_code: 131047 });

    const answer = await send();
    const wamid = answer.body.messages[0].id;
    const [hook] = await t.receiver.waitFor('messages', (v) => v.statuses?.[0]?.id === wamid);

    expect(answer.status).toBe(200);
    expect(hook!.validSignature).toBe(true);
    expect(hook!.body.entry[0]!.changes[0]!.value.statuses![0]).toEqual({
      id: wamid,
      status: 'failed',
      timestamp: expect.any(String),
      recipient_id: USER,
      errors: [
        {
          code: 131047,
          title: 'Re-engagement message',
          message: 'Re-engagement message',
          error_data: {
            details:
              'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
          },
          href: expect.stringContaining('error-codes'),
        },
      ],
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(t.receiver.statusesFor(wamid).map((s) => s.status)).toEqual(['failed']);
  });

  it('when the throughput limit is 2 per second, then the third immediate send gets 130429', async () => {
    await t.control('POST', '/faults', {
      phone_number_id: CHANNEL.phone_number_id,
      throughput_per_second: 2,
    });

    const answers = [await send(), await send(), await send()];

    expect(answers.map((a) => a.status)).toEqual([200, 200, 400]);
    expect(answers[2]!.body.error).toMatchObject({
      code: 130429,
      message: '(#130429) Rate limit hit',
      error_data: { details: 'Cloud API message throughput has been reached.' },
    });
  });

  it('when faults are deleted, then sends succeed again', async () => {
    await t.control('POST', '/faults', { error_code: 131000 });
    expect((await send()).status).toBe(500);

    expect((await t.control('DELETE', '/faults')).status).toBe(204);

    expect((await send()).status).toBe(200);
  });

  it('when a rule drops the connection, then the client sees a network error', async () => {
    await t.control('POST', '/faults', { drop_connection: true, count: 1 });

    await expect(send()).rejects.toThrow();
    expect((await send()).status).toBe(200);
  });

  it('when a rule mixes kinds of effect, then the control API refuses it', async () => {
    const answer = await t.control('POST', '/faults', {
      error_code: 131000,
      throughput_per_second: 1,
    });

    expect(answer.status).toBe(422);
  });

  it('when the 24 h window is enforced and the user never wrote, then a text fails asynchronously with 131047', async () => {
    await t.stop();
    t = await startTestSimulator({ enforceServiceWindow: true });
    const before = await send();
    await t.control('POST', '/inbound', {
      phone_number_id: CHANNEL.phone_number_id,
      from: USER,
      text: 'hello',
    });
    const after = await send();

    await t.receiver.waitFor('messages', (v) => v.statuses?.[0]?.id === before.body.messages[0].id);
    await t.receiver.waitFor('messages', (v) => v.statuses?.[0]?.status === 'read');

    expect(t.receiver.statusesFor(before.body.messages[0].id).map((s) => s.status)).toEqual([
      'failed',
    ]);
    expect(t.receiver.statusesFor(after.body.messages[0].id)[0]!.status).toBe('sent');
  });
});
