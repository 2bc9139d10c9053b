import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  /** The header lines as they came, names as spelled on the wire: `[name, value, …]`. */
  rawHeaders: string[];
  /** The raw bytes, as they came: what the signature covers. */
  body: Buffer;
  at: number;
  verified: boolean;
}

export type Behaviour = (request: ReceivedRequest, index: number) => Answer;
export type Answer =
  | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number }
  | { hang: true };

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Secrets the receiver accepts `X-Webhook-Signature` from (added once they are known). */
  secrets: string[];
  trust(secret: string): void;
  behave(behaviour: Behaviour): void;
  close(): Promise<void>;
}

export const ok: Behaviour = () => ({ status: 200, body: 'ok' });

/** Checking the published webhook signature: recompute over the raw body, compare in constant time. */
export function signatureMatches(secret: string, body: Buffer, given: string | undefined): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(body).digest('hex'));
  const received = Buffer.from(given ?? '');
  return received.length === expected.length && timingSafeEqual(received, expected);
}

/**
 * A customer's endpoint written like the spec's sample receiver: the raw body's HMAC is checked
 * before anything else, and a mismatch is answered 403. Then it behaves as the test tells it.
 */
export async function startReceiver(behaviour: Behaviour = ok): Promise<Receiver> {
  let current = behaviour;
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  const receiver: Receiver = {
    url: '',
    requests,
    secrets: [],
    trust: (secret) => {
      receiver.secrets.push(secret);
    },
    behave: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const given = req.headers['x-webhook-signature'] as string | undefined;
      const verified = receiver.secrets.some((secret) => signatureMatches(secret, body, given));
      const request: ReceivedRequest = {
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body,
        at: Date.now(),
        verified,
      };
      requests.push(request);
      if (!verified) {
        res.writeHead(403).end('signature mismatch');
        return;
      }
      const answer = current(request, requests.length - 1);
      if ('hang' in answer) {
        hanging.add(res);
        return;
      }
      const send = () => res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
