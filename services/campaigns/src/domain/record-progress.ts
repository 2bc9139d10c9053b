import type { BrokerEvent } from '@switchboard/contracts';
import { recipientKey, type RecipientState } from '../data-access/recipient-store';
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
  if (!event.campaign_id || !target) return;
  const contactId = (event.data as { contact_id: number }).contact_id;
  const key = recipientKey(event.campaign_id, contactId);
  for (let attempt = 0; attempt < 5; attempt++) {
    const recipient = await deps.recipients.find(event.campaign_id, contactId);
    if (!recipient || recipient.company_id !== event.company_id) return;
    if (!canMove(recipient.state, target)) return;
    if (await deps.recipients.move(key, recipient.state, target)) {
      await deps.campaigns.update(
        event.campaign_id,
        {},
        {},
        [],
        countersCrossed(recipient.state, target),
      );
      await completeIfSettled(deps, event.campaign_id);
      return;
    }
  }
  throw new Error(`recipient ${key} kept changing; retried later`);
}
