import type { BrokerEvent, ProviderEventMessage } from '@switchboard/contracts';
import type { EventRelay, Logger } from '@switchboard/service-kit';
import type { ChannelStore } from '../../data-access/channel-store';
import type { NoticeStore } from '../../data-access/notice-store';
import type { ChannelDirectory } from '../channel-directory';
import { brokerEvent } from '../message-events';
import { storeNotice } from '../provider-notices';

export interface NoticeDeps {
  notices: NoticeStore;
  channels: ChannelStore;
  directory: ChannelDirectory;
  relay: EventRelay;
  logger: Logger;
  /** Forgets a cached accountStatus answer: the account changed. */
  accountChanged(company_id: number): void;
}

type Loose = Record<string, unknown>;
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** The account status a review decision leaves (as the Cloud API documents it). */
export const REVIEW_ACCOUNT_STATUS: Record<string, string> = {
  APPROVED: 'active',
  PENDING: 'pending_review',
  DEFERRED: 'pending_review',
  REJECTED: 'rejected',
};

const BAN_ACCOUNT_STATUS: Record<string, string> = {
  DISABLE: 'disabled',
  SCHEDULE_FOR_DISABLE: 'scheduled_for_disable',
  REINSTATE: 'active',
};

const EVENT_ACCOUNT_STATUS: Record<string, string> = {
  ACCOUNT_RESTRICTION: 'restricted',
  ACCOUNT_VIOLATION: 'warned',
  ACCOUNT_DELETED: 'deleted',
  ACCOUNT_OFFBOARDED: 'offboarded',
  ACCOUNT_RECONNECTED: 'active',
};

/**
 * The decision and resulting account status of an `account_review_update` or `account_update`
 * (as the Cloud API documents it); null for changes that do not touch the account's status (partner
 * events, pricing, quality updates).
 */
export function accountDecisionOf(
  field: string,
  value: Loose,
): { decision: string; account_status: string } | null {
  if (field === 'account_review_update') {
    const decision = text(value.decision);
    return decision
      ? { decision, account_status: REVIEW_ACCOUNT_STATUS[decision] ?? decision.toLowerCase() }
      : null;
  }
  if (field !== 'account_update') return null;
  const event = text(value.event);
  if (event === 'DISABLED_UPDATE') {
    const state = (value.ban_info as Loose | undefined)?.waba_ban_state;
    const decision = text(Array.isArray(state) ? state[0] : state);
    return decision
      ? { decision, account_status: BAN_ACCOUNT_STATUS[decision] ?? decision.toLowerCase() }
      : null;
  }
  const status = event ? EVENT_ACCOUNT_STATUS[event] : undefined;
  return event && status ? { decision: event, account_status: status } : null;
}

/** `phone_number_name_update` (as the Cloud API documents it) as the published payloads word it. */
export function nameDecisionOf(value: Loose): {
  decision: string;
  phone_number: string;
  requested_name: string;
  rejection_reason: string | null;
} | null {
  const decision = text(value.decision);
  if (!decision) return null;
  const declined = decision === 'REJECTED' || decision === 'DECLINED';
  return {
    decision,
    phone_number: text(value.display_phone_number) ?? '',
    requested_name: text(value.requested_verified_name) ?? '',
    rejection_reason: declined ? (text(value.rejection_reason) ?? 'UNKNOWN') : null,
  };
}

/**
 * Account and display-name decisions → `account_status_updated`, `phone_number_name_updated`.
 * Each provider message is stored once with its event (a redelivery finds it and does nothing).
 */
export async function noteAccountChange(
  deps: NoticeDeps,
  message: ProviderEventMessage,
  now = new Date(),
): Promise<void> {
  const { company_id } = message;
  deps.accountChanged(company_id);
  const events: BrokerEvent[] = [];
  if (message.field === 'phone_number_name_update') {
    const decision = nameDecisionOf(message.value);
    if (decision) {
      events.push(
        brokerEvent('phone_number_name_updated', company_id, { ...decision, company_id }, now),
      );
      if (decision.decision === 'APPROVED' && decision.requested_name) {
        await deps.channels.update(company_id, { verified_name: decision.requested_name }, now);
        deps.directory.forget(company_id);
      }
    }
  } else {
    const decision = accountDecisionOf(message.field, message.value);
    if (decision) {
      // Kept on the channel first, so accountStatus answers the decision at once (the provider's
      // own fields do not show a ban), and a redelivery keeps it again harmlessly.
      await deps.channels.noteAccount(company_id, {
        ...decision,
        review_status: message.field === 'account_review_update' ? decision.decision : null,
        at: new Date(message.received_at),
      });
      events.push(
        brokerEvent('account_status_updated', company_id, { ...decision, company_id }, now),
      );
    }
  }
  if (events.length === 0) {
    deps.logger.debug({ field: message.field }, 'provider notice without an event; noted only');
    return;
  }
  const stored = await storeNotice(deps, message, events, now);
  if (stored === 'duplicate') deps.logger.info({ id: message.id }, 'repeated provider notice');
}
