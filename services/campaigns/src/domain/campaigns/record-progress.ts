import type { BrokerEvent } from '@switchboard/contracts';
import type { CampaignType } from '@switchboard/contracts';
import {
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

type Counters = ReturnType<typeof countersCrossed>;

function addCounters(total: Counters, more: Counters, times: number): void {
  for (const [name, n] of Object.entries(more) as [keyof Counters, number][]) {
    total[name] = (total[name] ?? 0) + n * times;
  }
}

/** Campaign types by id, remembered: a campaign's type never changes. */
const TYPE_CACHE_LIMIT = 10_000;

/**
 * The moves a regular campaign's recipients make in a batch, in this order, and what each move
 * adds to the campaign's counters. A recipient goes forward one state at a time (queued → sent →
 * delivered → read; to failed last), each step one command for all of a campaign's recipients that
 * need it, so the number of recipients a step moves is exactly what its counters grow by.
 */
const STEPS: { from: RecipientState[]; to: RecipientState; counts: Counters }[] = [
  { from: ['queued'], to: 'sent', counts: { sent: 1, settled: 1 } },
  { from: ['sent'], to: 'delivered', counts: { delivered: 1 } },
  { from: ['delivered'], to: 'read', counts: { read: 1 } },
  { from: ['queued'], to: 'failed', counts: { failed: 1, settled: 1 } },
  { from: ['sent', 'delivered'], to: 'failed', counts: { failed: 1 } },
];

/**
 * Where a recipient's events of one batch, in order, take it: the furthest state before a
 * failure (moving straight there crosses what moving through each would), and whether it fails
 * then (events after a failure can move nothing: failed is final, and a failure that finds the
 * message read leaves it read, beyond every later target).
 */
interface Reach {
  furthest?: Exclude<RecipientState, 'failed'>;
  fails: boolean;
}

function needs(reach: Reach, to: RecipientState): boolean {
  if (to === 'failed') return reach.fails;
  return reach.furthest !== undefined && RANK[reach.furthest] >= RANK[to];
}

/**
 * Records the progress events of many messages at once (the consumer's unacked deliveries). A
 * regular campaign's recipients move in a few commands whatever the batch holds: the steps above,
 * each one `update` of conditional statements, then the campaign's counters by the sum the steps
 * moved, answering the campaign so that completion is checked on what that write left. A
 * redelivered or late event finds its recipient past the step's state and moves nothing, so it
 * counts once or not at all. API campaigns' events, whose recipients are made on their first
 * event, go one at a time. Answers one outcome per event: undefined, or the Error that should
 * send it back for a retry.
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

  /**
   * Moves one campaign's recipients step by step and counts what moved. A step that fails stops
   * the rest; what moved before it is still counted, and the caller retries the campaign's events
   * (their moves that were done change nothing again; a move the failed command may have made
   * waits for the recount job, as a crash between a move and its count always did).
   */
  async function advanceCampaign(
    campaign_id: number,
    company_id: number,
    reaches: Map<string, Reach>,
  ): Promise<void> {
    const counters: Counters = {};
    let failure: unknown;
    try {
      for (const step of STEPS) {
        const keys = [...reaches].filter(([, reach]) => needs(reach, step.to)).map(([key]) => key);
        const moved = await deps.recipients.advanceAll(keys, company_id, step.from, step.to);
        if (moved > 0) addCounters(counters, step.counts, moved);
      }
    } catch (error) {
      failure = error;
    }
    if (Object.keys(counters).length > 0) {
      const campaign = await deps.campaigns.addProgress(campaign_id, counters);
      deps.progressChanged(campaign_id);
      await completeIfSettled(deps, campaign_id, campaign);
    }
    if (failure !== undefined) throw failure;
  }

  return async function recordProgressBatch(events: BrokerEvent[]): Promise<(undefined | Error)[]> {
    const outcomes: (undefined | Error)[] = events.map(() => undefined);
    /** Per campaign and organization: each recipient's reach, and the events that brought it. */
    const regular = new Map<
      string,
      { campaign_id: number; company_id: number; reaches: Map<string, Reach>; indexes: number[] }
    >();
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
      const { company_id } = event;
      const group = `${campaign_id}:${company_id}`;
      const entry = regular.get(group) ?? {
        campaign_id,
        company_id,
        reaches: new Map<string, Reach>(),
        indexes: [],
      };
      regular.set(group, entry);
      entry.indexes.push(index);
      const key = recipientKey(campaign_id, (event.data as { contact_id: number }).contact_id);
      const reach = entry.reaches.get(key) ?? { fails: false };
      entry.reaches.set(key, reach);
      if (reach.fails) continue;
      if (target === 'failed') reach.fails = true;
      else if (reach.furthest === undefined || RANK[target] > RANK[reach.furthest]) {
        reach.furthest = target;
      }
    }

    await Promise.all(
      [...regular.values()].map(async ({ campaign_id, company_id, reaches, indexes }) => {
        try {
          await advanceCampaign(campaign_id, company_id, reaches);
        } catch (error) {
          const failure = error instanceof Error ? error : new Error(String(error));
          for (const index of indexes) outcomes[index] = failure;
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
