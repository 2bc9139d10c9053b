import { createQuotaCounter, type QuotaCounter } from '@switchboard/service-kit';
import type { Connection } from 'mongoose';

/**
 * Messages an organization sent in one calendar month (UTC), `_id` `<company_id>:<YYYY-MM>`:
 * campaigns reserve their audience under the start attempt's name, a send holds its own place
 * under its message's hold name until the message is stored, and an automated answer's place is
 * held under its producer's name until the command naming it moves it to the message's.
 */
export function createMessageQuotaCounter(db: Connection): QuotaCounter {
  return createQuotaCounter(db, { collection: 'message_quotas', period: 'month' });
}

/** The hold of a send's own place, until its message is stored. */
export const messageHold = (messageId: number) => `message:${messageId}`;
/** The message a hold is for, when it is a send's own (not a producer's). */
export function messageIdOfHold(name: string): number | undefined {
  const match = /^message:(\d{1,15})$/.exec(name);
  return match ? Number(match[1]) : undefined;
}
