import { createHash } from 'node:crypto';
import {
  ProviderWebhookSchema,
  routeProviderChange,
  type InboundChannel,
} from '@switchboard/contracts';
import { currentTraceCarrier, type TraceCarrier } from '@switchboard/service-kit';
import type { InboundEvent, PendingPublication } from '../data-access/inbound-event-store';

/** Splits a webhook into the broker messages it becomes: one per change and kind. */
export function publicationsOf(eventId: string, payload: unknown): PendingPublication[] | string {
  const parsed = ProviderWebhookSchema.safeParse(payload);
  if (!parsed.success) return 'not a provider webhook envelope';
  return parsed.data.entry.flatMap((entry, entryIndex) =>
    entry.changes.flatMap((change, changeIndex) =>
      routeProviderChange(change.field, change.value).map(({ routingKey, value }) => ({
        message_id: `${eventId}:${entryIndex}:${changeIndex}:${routingKey}`,
        routing_key: routingKey,
        waba_id: entry.id,
        field: change.field,
        value_json: JSON.stringify(value),
      })),
    ),
  );
}

function traceContextField(): { trace_context?: TraceCarrier } {
  const carrier = currentTraceCarrier();
  return carrier ? { trace_context: carrier } : {};
}

/**
 * The id of a webhook, from its organization and the digest of its bytes: the provider's retry
 * of a delivery (the same bytes) gets the same id, and so do its broker messages, whose ids are
 * made from it, so that a retry published again is known downstream as the same events (UUID
 * shaped, as the ids were when they were random).
 */
export function inboundEventIdOf(companyId: number, bodySha256: string): string {
  const hex = createHash('sha256').update(`${companyId}:${bodySha256}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A verified webhook as it is stored, before anything else happens to it. Malformed bodies are
 * kept as rejected (and still answered 200: the provider would only send them again).
 */
export function inboundEventOf(
  channel: InboundChannel,
  rawBody: Buffer,
  now = new Date(),
): InboundEvent {
  const bodySha256 = createHash('sha256').update(rawBody).digest('hex');
  const id = inboundEventIdOf(channel.company_id, bodySha256);
  // Decoded once: parsed here, stored as it is.
  const text = rawBody.toString('utf8');
  let pending: PendingPublication[] = [];
  let reason: string | null = null;
  try {
    const result = publicationsOf(id, JSON.parse(text));
    if (typeof result === 'string') reason = result;
    else pending = result;
  } catch {
    reason = 'body is not valid JSON';
  }
  return {
    _id: id,
    company_id: channel.company_id,
    body_sha256: bodySha256,
    raw_body: text,
    state: reason ? 'rejected' : 'accepted',
    reason,
    pending,
    received_at: now,
    published_at: reason || pending.length === 0 ? now : null,
    ...traceContextField(),
  };
}
