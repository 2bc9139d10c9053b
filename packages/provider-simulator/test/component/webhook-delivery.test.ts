import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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

  describe('to a receiver of its own answering as it is told', () => {
    const OTHER = { ...CHANNEL, phone_number_id: '106540352242999', waba_id: '102290129340999' };
    let server: Server;
    let connections = 0;
    const requests: string[] = [];

    async function startWith(answer: (req: IncomingMessage, res: ServerResponse) => void) {
      connections = 0;
      requests.length = 0;
      server = createServer((req, res) => {
        requests.push(req.url ?? '');
        req.resume();
        req.on('end', () => answer(req, res));
      });
      server.on('connection', () => (connections += 1));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      t = await startTestSimulator({
        statusDelaysMs: [],
        webhookTimeoutMs: 200,
        channels: [{ ...OTHER, webhook_url: url }],
      });
    }

    afterEach(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    const injectToOther = (text = 'hi') =>
      t.control('POST', '/inbound', {
        phone_number_id: OTHER.phone_number_id,
        from: '16505551234',
        text,
      });

    it('when the receiver does not answer within the timeout, then the attempt fails as a timeout and is made again', async () => {
      await startWith(() => undefined); // never answers

      const started = Date.now();
      const answer = await injectToOther();

      expect(answer.body.webhook).toMatchObject({ state: 'failed', attempts: 3 });
      const log = await t.control('GET', '/webhooks?field=messages');
      const attempts = log.body.webhooks[0].attempts as { error?: string; duration_ms: number }[];
      expect(attempts.map((attempt) => attempt.error)).toEqual(['timeout', 'timeout', 'timeout']);
      for (const attempt of attempts) expect(attempt.duration_ms).toBeGreaterThanOrEqual(190);
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('when the receiver answers a redirect, then it is not followed: the attempt records the 302 and is made again at the same URL', async () => {
      await startWith((_req, res) => {
        res.writeHead(302, { location: '/elsewhere' });
        res.end('moved');
      });

      const answer = await injectToOther();

      expect(answer.body.webhook).toMatchObject({
        state: 'failed',
        attempts: 3,
        response_status: 302,
      });
      expect(requests).toEqual(['/hook', '/hook', '/hook']);
    });

    it('when several webhooks go to one receiver, then they share a kept-alive connection and each gets its answer', async () => {
      await startWith((_req, res) => {
        res.writeHead(200);
        res.end('EVENT_RECEIVED');
      });

      for (const text of ['one', 'two', 'three']) {
        const answer = await injectToOther(text);
        expect(answer.body.webhook).toMatchObject({ state: 'delivered', response_status: 200 });
      }
      expect(requests).toHaveLength(3);
      expect(connections).toBe(1);
    });
  });
});
