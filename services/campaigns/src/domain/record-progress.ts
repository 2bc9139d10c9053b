import type { BrokerEvent } from '@switchboard/contracts';
import {
  apiRecipientKey,
  recipientKey,
  type RecipientState,
  type StoredRecipient,
} from '../data-access/recipient-store';
import type { CampaignsDeps } from './dependencies';
import { completeIfSettled, countersCrossed } from './dispatch-campaign';

const RANK: Record<RecipientState, number> = {
  queued: 0,
  sent: 1,
  delivered: 2,
  read: 3,
  failed: 4,
};

/** Forward only; failed ends any state but read (a read message was delivered, whatever follows). */
function canMove(from: RecipientState, to: RecipientState): boolean {
  if (from === to || from === 'failed') return false;
  if (to === 'failed') return from !== 'read';
  return RANK[to] > RANK[from];
}

function targetOf(event: BrokerEvent): RecipientState | undefined {
  if (event.event === 'message_sent') return 'sent';
  if (event.event === 'message_failed') return 'failed';
  if (event.event === 'message_status_updated') return event.data.status;
  return undefined;
}

/**
 * A message event of a campaign's message moves its recipient and the
 * campaign's counters. The recipient moves first, conditionally on the state it was read in, so
 * an event that is redelivered, duplicated or late counts once or not at all.
 */
export async function recordProgress(deps: CampaignsDeps, event: BrokerEvent): Promise<void> {
  const target = targetOf(event);
  const campaign_id = event.campaign_id;
  if (!campaign_id || !target) return;
  const { contact_id, message_id } = event.data as { contact_id: number; message_id: number };
  let key = recipientKey(campaign_id, contact_id);
  let perMessage = false;
  for (let attempt = 0; attempt < 5; attempt++) {
    let recipient = await deps.recipients.findByKey(key);
    if (!recipient && !perMessage) {
      recipient = await apiRecipientOf(deps, event.company_id, campaign_id, contact_id, message_id);
      if (recipient) [key, perMessage] = [recipient._id, true];
    }
    if (!recipient || recipient.company_id !== event.company_id) return;
    if (!canMove(recipient.state, target)) return;
    if (await deps.recipients.move(key, recipient.state, target)) {
      const inc = countersCrossed(recipient.state, target);
      // An API campaign's audience is its messages: each counts once, when it first settles.
      if (perMessage && inc.settled) inc.total_contacts = 1;
      await deps.campaigns.update(campaign_id, {}, {}, [], inc);
      deps.progressChanged(campaign_id);
      if (!perMessage) await completeIfSettled(deps, campaign_id);
      return;
    }
  }
  throw new Error(`recipient ${key} kept changing; retried later`);
}

/**
 * The recipient of an API campaign's message, made on its first event (the send answered
 * before or after it; only the event is sure to come). Null when the campaign is not an API
 * campaign of the organization.
 */
async function apiRecipientOf(
  deps: CampaignsDeps,
  company_id: number,
  campaign_id: number,
  contact_id: number,
  message_id: number,
): Promise<StoredRecipient | null> {
  const campaign = await deps.campaigns.find(company_id, campaign_id);
  if (!campaign || campaign.type !== 'api' || typeof message_id !== 'number') return null;
  const key = apiRecipientKey(campaign_id, message_id);
  await deps.recipients.addMany([
    { _id: key, campaign_id, company_id, contact_id, state: 'queued', created_at: new Date() },
  ]);
  return deps.recipients.findByKey(key);
}
