import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  raw: string;
  body: WebhookBody;
  signature: string | undefined;
  validSignature: boolean;
  answeredWith: number;
}

/** Loose view of a posted envelope, enough for assertions. */
export interface WebhookBody {
  object: string;
  entry: {
    id: string;
    time?: number;
    changes: { field: string; value: Record<string, unknown> & WebhookValue }[];
  }[];
}
export interface WebhookValue {
  messaging_product?: string;
  metadata?: { display_phone_number: string; phone_number_id: string };
  statuses?: Record<string, unknown>[];
  messages?: Record<string, unknown>[];
  contacts?: Record<string, unknown>[];
}

/**
 * A stand-in for the inbound service: verifies `X-Hub-Signature-256` over the raw bytes (as a
 * receiver must), answers the GET handshake, and records what arrived.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** Status codes to answer with, one per POST; 200 once they run out. */
  answers: number[] = [];
  verifyToken = 'receiver-verify-token';
  private server: Server | undefined;
  url = '';

  constructor(private readonly appSecret: string) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      if (req.method === 'GET') {
        const ok =
          url.searchParams.get('hub.mode') === 'subscribe' &&
          url.searchParams.get('hub.verify_token') === this.verifyToken;
        res.writeHead(ok ? 200 : 403, { 'content-type': 'text/plain' });
        res.end(ok ? (url.searchParams.get('hub.challenge') ?? '') : 'forbidden');
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const rawBytes = Buffer.concat(chunks);
        const signature = req.headers['x-hub-signature-256'] as string | undefined;
        const status = this.answers.shift() ?? 200;
        this.received.push({
          raw: rawBytes.toString('utf8'),
          body: JSON.parse(rawBytes.toString('utf8')) as WebhookBody,
          signature,
          validSignature: this.verify(rawBytes, signature),
          answeredWith: status,
        });
        res.writeHead(status);
        res.end(status === 200 ? 'EVENT_RECEIVED' : 'error');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhook/svc/receive/tok`;
    return this.url;
  }

  private verify(raw: Buffer, header: string | undefined): boolean {
    if (!header?.startsWith('sha256=')) return false;
    const expected = createHmac('sha256', this.appSecret).update(raw).digest();
    const given = Buffer.from(header.slice('sha256='.length), 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** Webhooks whose first change is of `field` and satisfies `predicate`. */
  matching(
    field: string,
    predicate: (value: WebhookValue & Record<string, unknown>) => boolean = () => true,
  ) {
    return this.received.filter((hook) => {
      const change = hook.body.entry[0]?.changes[0];
      return change?.field === field && predicate(change.value);
    });
  }

  async waitFor(
    field: string,
    predicate: (value: WebhookValue & Record<string, unknown>) => boolean,
    count = 1,
    timeoutMs = 3000,
  ): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.matching(field, predicate);
      if (found.length >= count) return found;
      if (Date.now() > deadline) {
        throw new Error(
          `waited ${timeoutMs} ms for ${count} ${field} webhook(s), got ${found.length}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  statusesFor(wamid: string): Record<string, unknown>[] {
    return this.matching('messages', (value) => value.statuses !== undefined)
      .flatMap((hook) => hook.body.entry[0]!.changes[0]!.value.statuses ?? [])
      .filter((status) => status.id === wamid);
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
