import type { MediaDescriptor } from '@switchboard/contracts';
import type { EventRelay, Logger } from '@switchboard/service-kit';
import { createHash } from 'node:crypto';
import type { InboundMedia, InboundMediaStore } from '../../data-access/inbound-media-store';
import type { MessageStore } from '../../data-access/message-store';
import type { ProviderMedia } from '../../outbound/provider-media';
import type { ChannelDirectory } from '../channel-directory';
import { messageReceived, type EventIds } from '../message-events';
import { mediaLimitOf } from './media-limits';

export interface MediaFetchDeps {
  media: InboundMediaStore;
  messages: MessageStore;
  channels: ChannelDirectory;
  providerMedia: ProviderMedia;
  relay: EventRelay;
  eventIds: EventIds;
  logger: Logger;
  /** Where the organization fetches a file: `getMedia` on the gateway's public address. */
  publicBaseUrl: string;
  /** Every kind's size limit is at most this. */
  capBytes: number;
  maxAttempts: number;
  retryBaseMs: number;
  /** How long one attempt may hold a file before another process may take it over. */
  leaseMs: number;
  /** Files fetched at once by this process. */
  concurrency: number;
}

/** The authenticated address of a stored file (the token is added by the caller). */
export const mediaUrlOf = (publicBaseUrl: string, id: number) =>
  `${publicBaseUrl.replace(/\/+$/, '')}/api/svc/getMedia?media_id=${id}`;

/** What a message and its `message_received` say of its file. */
export function describeMedia(
  media: Pick<
    InboundMedia,
    'id' | 'type' | 'mime_type' | 'size' | 'status' | 'filename' | 'sha256'
  >,
  publicBaseUrl: string,
): MediaDescriptor {
  return {
    type: media.type,
    mime_type: media.mime_type,
    size: media.size,
    url: media.status === 'available' ? mediaUrlOf(publicBaseUrl, media.id) : null,
    status: media.status,
    filename: media.filename,
    sha256: media.sha256,
  };
}

type Outcome =
  | { status: 'available'; bytes: Buffer; mime_type: string; sha256: string | null }
  | { status: 'too_large'; size: number | null }
  | { status: 'failed'; retryable: boolean; error: string };

const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** One attempt: the provider's lookup (media id → URL), then the bytes, within the kind's limit. */
async function attempt(deps: MediaFetchDeps, media: InboundMedia): Promise<Outcome> {
  const channel =
    (media.phone_number_id
      ? await deps.channels.findNumber(media.company_id, media.phone_number_id)
      : null) ?? (await deps.channels.find(media.company_id));
  if (!channel) return { status: 'failed', retryable: false, error: 'The channel is gone' };
  const limit = mediaLimitOf(media.type, deps.capBytes);
  const info = await deps.providerMedia.lookup(channel, media.provider_media_id);
  if (!info.ok) {
    return 'tooLarge' in info
      ? { status: 'too_large', size: null }
      : { status: 'failed', retryable: info.retryable, error: info.error };
  }
  if (info.data.file_size !== null && info.data.file_size > limit) {
    return { status: 'too_large', size: info.data.file_size };
  }
  const download = await deps.providerMedia.download(channel, info.data.url, limit);
  if (!download.ok) {
    return 'tooLarge' in download
      ? { status: 'too_large', size: info.data.file_size }
      : { status: 'failed', retryable: download.retryable, error: download.error };
  }
  const bytes = download.data;
  if (bytes.length > limit) return { status: 'too_large', size: bytes.length };
  const expected = info.data.sha256 ?? media.sha256;
  if (expected && expected.toLowerCase() !== sha256Of(bytes)) {
    return { status: 'failed', retryable: true, error: 'The file did not match its SHA-256' };
  }
  return {
    status: 'available',
    bytes,
    mime_type: info.data.mime_type ?? media.mime_type,
    sha256: expected ?? sha256Of(bytes),
  };
}

/**
 * Fetches one pending file this process could claim, and settles it: stored in chunks and
 * `available`, `too_large`, or `failed` once its attempts are spent (a failure that cannot pass,
 * such as a media id the provider does not know, spends them at once); otherwise it is tried again
 * later. A settled file's message shows it and its `message_received` is written and published.
 */
export async function fetchInboundMedia(deps: MediaFetchDeps, id: number): Promise<void> {
  const claimed = await deps.media.claim(id, new Date(), deps.leaseMs);
  if (!claimed) return;
  const log = deps.logger.child({ media_id: id, company_id: claimed.company_id });
  let outcome: Outcome;
  try {
    // Queued just before its message is stored: a fetch that finds no message yet waits (and a
    // message that is never stored, a concurrent duplicate, leaves a file that is never fetched).
    outcome = (await deps.messages.findById(id))
      ? await attempt(deps, claimed)
      : { status: 'failed', retryable: true, error: 'The message is not stored' };
  } catch (error) {
    log.warn({ err: error }, 'inbound media fetch failed unexpectedly');
    outcome = { status: 'failed', retryable: true, error: 'The file could not be fetched' };
  }
  const now = new Date();
  if (outcome.status === 'failed' && outcome.retryable && claimed.attempts < deps.maxAttempts) {
    const wait = deps.retryBaseMs * 4 ** (claimed.attempts - 1);
    log.info({ error: outcome.error, attempt: claimed.attempts }, 'inbound media fetch retried');
    await deps.media.retryAt(id, new Date(now.getTime() + wait), outcome.error, now);
    return;
  }
  let settled: InboundMedia;
  if (outcome.status === 'available') {
    const chunks = await deps.media.writeBytes(id, outcome.bytes);
    settled = {
      ...claimed,
      status: 'available',
      size: outcome.bytes.length,
      chunks,
      mime_type: outcome.mime_type,
      sha256: outcome.sha256,
      error: null,
    };
  } else if (outcome.status === 'too_large') {
    log.warn({ size: outcome.size, type: claimed.type }, 'inbound media over its size limit');
    settled = { ...claimed, status: 'too_large', size: outcome.size, chunks: 0, error: null };
  } else {
    log.warn({ error: outcome.error, attempts: claimed.attempts }, 'inbound media not fetched');
    settled = { ...claimed, status: 'failed', chunks: 0, error: outcome.error };
  }
  await announce(deps, settled, now);
  await deps.media.settle(
    id,
    {
      status: settled.status,
      size: settled.size,
      chunks: settled.chunks,
      error: settled.error,
      mime_type: settled.mime_type,
      sha256: settled.sha256,
    },
    now,
  );
  deps.relay.relaySoon(deps.messages.outbox, String(id));
}

/**
 * The message shows its file and its `message_received` is written, before the file's own record
 * is settled: a crash in between fetches again and writes the same event (same id) again.
 */
async function announce(deps: MediaFetchDeps, media: InboundMedia, now: Date): Promise<void> {
  const message = await deps.messages.findById(media.id);
  if (!message) return;
  const descriptor = describeMedia(media, deps.publicBaseUrl);
  const event = messageReceived(
    deps.eventIds,
    { ...message, media: descriptor },
    media.contact_name,
    now,
    media.echo ? { echo: true } : {},
  );
  await deps.messages.recordMedia(media.id, descriptor, [event], now);
}

/**
 * Fetches the files that are due, a few at a time; true when a full batch was found (more may
 * wait, so the caller runs again at once).
 */
export async function fetchDueMedia(deps: MediaFetchDeps): Promise<boolean> {
  const batch = Math.max(deps.concurrency * 4, 16);
  const due = await deps.media.due(new Date(), batch);
  for (let start = 0; start < due.length; start += deps.concurrency) {
    await Promise.all(
      due
        .slice(start, start + deps.concurrency)
        .map((media) =>
          fetchInboundMedia(deps, media.id).catch((error: unknown) =>
            deps.logger.warn({ err: error, media_id: media.id }, 'inbound media fetch failed'),
          ),
        ),
    );
  }
  return due.length === batch;
}
