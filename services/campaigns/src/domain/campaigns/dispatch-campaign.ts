import {
  MessagingSendCommandSchema,
  placeholderSources,
  type BrokerEvent,
  type MessagingSendCommandInput,
} from '@switchboard/contracts';
import { randomUUID } from 'node:crypto';
import type { StoredCampaign } from '../../data-access/campaigns/campaign-store';
import { recipientKey, type RecipientState } from '../../data-access/campaigns/recipient-store';
import type { CampaignsDeps } from './dependencies';
import { contentFor, fillVariables } from '../fill-message';

/** The idempotency key of a campaign's message to one contact: messaging sends it once. */
export const commandKey = (campaign_id: number, contact_id: number) =>
  `campaign:${campaign_id}:${contact_id}`;

function campaignCompleted(campaign: StoredCampaign, now: Date): BrokerEvent {
  return {
    id: randomUUID(),
    event: 'campaign_completed',
    timestamp: now.toISOString(),
    company_id: campaign.company_id,
    data: {
      id: campaign.id,
      name: campaign.name,
      total_contacts: campaign.total_contacts,
      completed_at: now.toISOString(),
    },
  };
}

/**
 * `campaign_completed`, exactly once: only the write that moves `started` → `completed` has it.
 * `as` is the campaign as a write just left it (its counters then), read again when not given.
 */
export async function completeIfSettled(
  deps: CampaignsDeps,
  id: number,
  as?: StoredCampaign | null,
): Promise<void> {
  const campaign = as === undefined ? await deps.campaigns.findById(id) : as;
  if (
    !campaign ||
    campaign.status !== 'started' ||
    !campaign.dispatch_done ||
    campaign.settled < campaign.total_contacts
  ) {
    return;
  }
  const now = new Date();
  const completed = await deps.campaigns.update(
    id,
    { status: 'started' },
    { status: 'completed', completed_at: now },
    [campaignCompleted(campaign, now)],
  );
  if (completed) {
    deps.relay.relaySoon(deps.campaigns.outbox, String(id));
    deps.progressChanged(id);
  }
}

/** Progress a recipient moved by: each counter it passes, and settled when it leaves queued. */
export function countersCrossed(from: RecipientState, to: RecipientState) {
  const rank = { queued: 0, sent: 1, delivered: 2, read: 3, failed: -1 } as const;
  const inc: Partial<
    Record<'sent' | 'delivered' | 'read' | 'failed' | 'settled' | 'total_contacts', number>
  > = {};
  if (from === 'queued') inc.settled = 1;
  if (to === 'failed') {
    inc.failed = 1;
    return inc;
  }
  if (rank[from] < 1 && rank[to] >= 1) inc.sent = 1;
  if (rank[from] < 2 && rank[to] >= 2) inc.delivered = 1;
  if (rank[from] < 3 && rank[to] >= 3) inc.read = 1;
  return inc;
}

/**
 * Hands a started campaign's messages to messaging, one page of the audience at a time:
 * recipients stored, one `messaging.send` command each with the quota already held,
 * then the cursor moved on. A restart resumes from the cursor; a page handed over twice is
 * harmless, messaging sends once per key. The audience is read as it is now, capped at the
 * count reserved; if it shrank, the places not used are given back.
 */
export async function dispatchCampaign(deps: CampaignsDeps, id: number): Promise<void> {
  for (;;) {
    const campaign = await deps.campaigns.findById(id);
    if (!campaign || campaign.dispatch_done || !campaign.audience || !campaign.quota_month) return;
    if (campaign.status !== 'started') {
      if (campaign.status === 'canceled') await finishDispatch(deps, campaign, campaign.dispatched);
      return;
    }
    const remaining = campaign.total_contacts - campaign.dispatched;
    const page =
      remaining > 0
        ? await deps.clients.audiencePage(
            campaign.company_id,
            campaign.audience,
            campaign.cursor,
            Math.min(deps.dispatchPageSize, remaining),
          )
        : { contacts: [], next_after_id: null };
    const contacts = page.contacts.slice(0, remaining);
    if (contacts.length === 0) {
      await finishDispatch(deps, campaign, campaign.dispatched);
      return;
    }

    await deps.recipients.addMany(
      contacts.map((contact) => ({
        _id: recipientKey(id, contact.id),
        campaign_id: id,
        company_id: campaign.company_id,
        contact_id: contact.id,
        state: 'queued' as const,
        created_at: new Date(),
      })),
    );
    let unsendable = 0;
    await Promise.all(
      contacts.map(async (contact) => {
        const filled = fillVariables(placeholderSources(campaign), contact);
        if ('missing' in filled) {
          // This contact lacks a field the message needs: it fails alone, the campaign goes on.
          if (await deps.recipients.move(recipientKey(id, contact.id), 'queued', 'failed')) {
            unsendable += 1;
            deps.logger.info(
              { campaign_id: id, contact_id: contact.id, missing: filled.missing },
              'campaign recipient skipped: missing variables',
            );
          }
          return;
        }
        const key = commandKey(id, contact.id);
        const command: MessagingSendCommandInput = {
          company_id: campaign.company_id,
          plan: campaign.plan,
          plan_started_at: new Date(campaign.plan_started_at).toISOString(),
          // The contact as the audience page gave it: messaging need not ask contacts again.
          contact_id: contact.id,
          phone: contact.phone,
          contact_name: contact.name,
          content: contentFor(campaign.message, filled.values),
          idempotency_key: key,
          campaign_id: id,
          quota_reserved: true,
          quota_month: campaign.quota_month!,
        };
        await deps.publishCommand(MessagingSendCommandSchema.parse(command), key);
      }),
    );
    if (unsendable > 0) {
      await deps.clients.releaseMessages(campaign.company_id, campaign.quota_month, unsendable);
    }
    const dispatched = campaign.dispatched + contacts.length;
    const last = page.next_after_id === null || contacts.length === remaining;
    await deps.campaigns.update(
      id,
      { cursor: campaign.cursor, status: 'started' },
      { cursor: contacts.at(-1)!.id, dispatched },
      [],
      unsendable > 0 ? { failed: unsendable, settled: unsendable } : {},
    );
    if (last && dispatched >= campaign.total_contacts) {
      await finishDispatch(deps, { ...campaign, dispatched }, dispatched);
      return;
    }
  }
}

/** No more messages to hand over: places reserved for recipients who are not there go back. */
async function finishDispatch(
  deps: CampaignsDeps,
  campaign: StoredCampaign,
  dispatched: number,
): Promise<void> {
  const unused = campaign.total_contacts - dispatched;
  const finished = await deps.campaigns.update(
    campaign.id,
    { dispatch_done: false, status: campaign.status },
    { dispatch_done: true, total_contacts: dispatched },
  );
  if (!finished) return;
  if (unused > 0 && campaign.quota_month) {
    await deps.clients.releaseMessages(campaign.company_id, campaign.quota_month, unused);
  }
  await completeIfSettled(deps, campaign.id);
}

/**
 * The safety net of progress: a process that died between moving a recipient and counting it
 * leaves a counter behind, and the campaign would never complete. Recounts from the recipients.
 */
export async function recountProgress(deps: CampaignsDeps, id: number): Promise<void> {
  const counts = await deps.recipients.countByState(id);
  const failed = counts.failed;
  const read = counts.read;
  const delivered = counts.delivered + read;
  const sent = counts.sent + delivered;
  await deps.campaigns.setCounters(id, {
    sent,
    delivered,
    read,
    failed,
    settled: sent + failed,
  });
  deps.progressChanged(id);
  await completeIfSettled(deps, id);
}
