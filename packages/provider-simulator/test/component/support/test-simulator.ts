import type { Simulator, SimulatorOptions } from '@switchboard/provider-simulator';
import { createSimulator, silentLogger } from '@switchboard/provider-simulator';
import { WebhookReceiver } from './webhook-receiver';

export const CHANNEL = {
  phone_number_id: '106540352242922',
  waba_id: '102290129340398',
  access_token: 'EAAtest-channel-token',
  app_secret: 'test-app-secret',
  display_phone_number: '+1 555-078-3881',
  verified_name: 'Lucky Shrub',
};

export interface TestSimulator {
  sim: Simulator;
  url: string;
  receiver: WebhookReceiver;
  /** A Cloud API call with the channel's token (or another, or none with `null`). */
  graph(method: string, path: string, body?: unknown, token?: string | null): Promise<Answer>;
  control(method: string, path: string, body?: unknown): Promise<Answer>;
  stop(): Promise<void>;
}

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
  headers: Headers;
}

async function call(
  url: string,
  method: string,
  body: unknown,
  token?: string | null,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url, {
    method,
    headers,
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text, headers: response.headers };
}

/** A simulator on port 0 with fast timings, one channel pointing at a local signature-checking receiver. */
export async function startTestSimulator(options: SimulatorOptions = {}): Promise<TestSimulator> {
  const receiver = new WebhookReceiver(CHANNEL.app_secret);
  await receiver.start();
  const sim = createSimulator({
    statusDelaysMs: [20, 20, 20],
    templateReviewDelayMs: 30,
    webhookRetryDelaysMs: [20, 40],
    webhookTimeoutMs: 1000,
    logger: silentLogger,
    ...options,
    channels: [{ ...CHANNEL, webhook_url: receiver.url }, ...(options.channels ?? [])],
  });
  const { url } = await sim.start(0);
  return {
    sim,
    url,
    receiver,
    graph: (method, path, body, token) =>
      call(`${url}${path}`, method, body, token === undefined ? CHANNEL.access_token : token),
    control: (method, path, body) => call(`${url}/sim${path}`, method, body),
    async stop() {
      await sim.stop();
      await receiver.stop();
    },
  };
}

export const textMessage = (to: string, body: string): Record<string, unknown> => ({
  messaging_product: 'whatsapp',
  recipient_type: 'individual',
  to,
  type: 'text',
  text: { body },
});
