import type { Logger } from '@switchboard/service-kit';
import type { InboundMediaStore } from '../../data-access/inbound-media-store';
import type { MessageStore } from '../../data-access/message-store';

const BATCH = 200;

/**
 * Retention: files kept longer than `retentionMs` are deleted (their chunks), their record and
 * their message say `expired`, and `getMedia` no longer serves them. The message itself stays.
 */
export interface MediaRetentionDeps {
  media: InboundMediaStore;
  messages: MessageStore;
  logger: Logger;
}

export async function expireInboundMedia(
  deps: MediaRetentionDeps,
  retentionMs: number,
  now = new Date(),
): Promise<number> {
  const before = new Date(now.getTime() - retentionMs);
  let expired = 0;
  for (;;) {
    const old = await deps.media.storedBefore(before, BATCH);
    for (const media of old) {
      await deps.messages.expireMedia(media.id, now);
      await deps.media.expire(media.id, now);
      expired++;
    }
    if (old.length < BATCH) break;
  }
  if (expired > 0) deps.logger.info({ expired }, 'inbound media past retention deleted');
  return expired;
}
