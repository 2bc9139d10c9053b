import type { BrokerEvent } from '@switchboard/contracts';
import type { CampaignType } from '@switchboard/contracts';
import {
  RECIPIENT_STATES,
  apiRecipientKey,
  recipientKey,
  type RecipientState,
  type StoredRecipient,
} from '../../data-access/campaigns/recipient-store';
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

/** The states a recipient may move to each state from. */
const MOVABLE_FROM = Object.fromEntries(
  RECIPIENT_STATES.map((to) => [to, RECIPIENT_STATES.filter((from) => canMove(from, to))]),
) as Record<RecipientState, RecipientState[]>;

type Counters = ReturnType<typeof countersCrossed>;

function addCounters(total: Counters, more: Counters): void {
  for (const [name, n] of Object.entries(more) as [keyof Counters, number][]) {
    total[name] = (total[name] ?? 0) + n;
  }
}

/** Campaign types by id, remembered: a campaign's type never changes. */
const TYPE_CACHE_LIMIT = 10_000;

/**
 * Records the progress events of many messages at once (the consumer's unacked deliveries): a
 * regular campaign's recipient moves with one conditional command per event that moves it (the
 * state it left says which counters it crossed), and each campaign's counters move by the batch's
 * sum in one write, followed by one completion check, instead of a read, a move, a counter write
 * and a completion check per event. Events of one recipient keep their order; a repeat of the
 * target just before it in the batch (`message_sent` and the `sent` status) is dropped unread.
 * API campaigns' events, whose recipients are made on their first event, go one at a time.
 * Answers one outcome per event: undefined, or the Error that should send it back for a retry.
 */
export function createProgressRecorder(deps: CampaignsDeps) {
  const types = new Map<number, CampaignType | null>();

  async function typeOf(id: number): Promise<CampaignType | null> {
    const known = types.get(id);
    if (known !== undefined) return known;
    const campaign = await deps.campaigns.findById(id);
    if (!campaign) return null; // not remembered: it may be created after this event
    if (types.size >= TYPE_CACHE_LIMIT) types.clear();
    types.set(id, campaign.type);
    return campaign.type;
  }

  return async function recordProgressBatch(events: BrokerEvent[]): Promise<(undefined | Error)[]> {
    const outcomes: (undefined | Error)[] = events.map(() => undefined);
    const regular = new Map<string, { index: number; target: RecipientState }[]>();
    const keyCampaign = new Map<string, { campaign_id: number; company_id: number }>();
    const one = async (index: number, work: () => Promise<void>) => {
      try {
        await work();
      } catch (error) {
        outcomes[index] = error instanceof Error ? error : new Error(String(error));
      }
    };
    const campaignIds = [
      ...new Set(events.map((event) => event.campaign_id).filter((id) => id !== undefined)),
    ];
    const typeById = new Map<number, CampaignType | null | Error>();
    await Promise.all(
      campaignIds.map(async (id) =>
        typeById.set(
          id,
          await typeOf(id).catch((error: unknown) =>
            error instanceof Error ? error : new Error(String(error)),
          ),
        ),
      ),
    );
    for (const [index, event] of events.entries()) {
      const target = targetOf(event);
      const campaign_id = event.campaign_id;
      if (!campaign_id || !target) continue;
      const type = typeById.get(campaign_id);
      if (type instanceof Error) {
        outcomes[index] = type;
        continue;
      }
      if (type !== 'regular') {
        // An API campaign (or one not found): one at a time, in order, as before.
        await one(index, () => recordProgress(deps, event));
        continue;
      }
      const { contact_id } = event.data as { contact_id: number };
      const key = recipientKey(campaign_id, contact_id);
      const moves = regular.get(key) ?? [];
      if (moves.at(-1)?.target !== target) moves.push({ index, target });
      regular.set(key, moves);
      keyCampaign.set(key, { campaign_id, company_id: event.company_id });
    }

    const inc = new Map<number, Counters>();
    const eventsOf = new Map<number, number[]>();
    await Promise.all(
      [...regular].map(async ([key, moves]) => {
        const { campaign_id, company_id } = keyCampaign.get(key)!;
        for (const [position, { index, target }] of moves.entries()) {
          try {
            const left = await deps.recipients.advance(
              key,
              company_id,
              MOVABLE_FROM[target],
              target,
            );
            if (left === null) continue;
            const counters = inc.get(campaign_id) ?? {};
            addCounters(counters, countersCrossed(left, target));
            inc.set(campaign_id, counters);
            eventsOf.set(campaign_id, [...(eventsOf.get(campaign_id) ?? []), index]);
          } catch (error) {
            // The recipient's later events wait for this one's retry, as one at a time would.
            const failure = error instanceof Error ? error : new Error(String(error));
            for (const later of moves.slice(position)) outcomes[later.index] = failure;
            return;
          }
        }
      }),
    );
    await Promise.all(
      [...inc].map(async ([campaign_id, counters]) => {
        try {
          await deps.campaigns.update(campaign_id, {}, {}, [], counters);
          deps.progressChanged(campaign_id);
          await completeIfSettled(deps, campaign_id);
        } catch (error) {
          const failure = error instanceof Error ? error : new Error(String(error));
          for (const index of eventsOf.get(campaign_id) ?? []) outcomes[index] = failure;
        }
      }),
    );
    return outcomes;
  };
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
