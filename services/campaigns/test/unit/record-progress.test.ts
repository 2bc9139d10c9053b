import { randomUUID } from 'node:crypto';
import type { BrokerEvent } from '@switchboard/contracts';
import type { CampaignsDeps } from '../../src/domain/campaigns/dependencies';
import { createProgressRecorder } from '../../src/domain/campaigns/record-progress';

const statusEvent = (contact_id: number, status: string): BrokerEvent =>
  ({
    id: randomUUID(),
    event: 'message_status_updated',
    timestamp: new Date().toISOString(),
    company_id: 7,
    campaign_id: 42,
    data: {
      company_id: 7,
      message_id: contact_id,
      message_wamid: `wamid.${contact_id}`,
      contact_id,
      phone: `39300000${contact_id}`,
      status,
      timestamp: new Date().toISOString(),
    },
  }) as unknown as BrokerEvent;

type State = 'queued' | 'sent' | 'delivered' | 'read' | 'failed';

/**
 * A campaign's recipients in memory, moved as the store's `advanceAll` moves them (each statement
 * conditional on its recipient's state).
 */
function recipientsInMemory(states: Map<string, State>) {
  return {
    store: {
      advanceAll: async (
        keys: string[],
        _company_id: number,
        from: readonly State[],
        to: State,
      ) => {
        let moved = 0;
        for (const key of keys) {
          for (const state of from) {
            if (states.get(key) === state) {
              states.set(key, to);
              moved += 1;
            }
          }
        }
        return moved;
      },
    },
  };
}

function campaignsInMemory() {
  const counters: Record<string, number> = {};
  const writes: unknown[] = [];
  return {
    counters,
    writes,
    store: {
      findById: async () => ({ id: 42, company_id: 7, type: 'regular' }),
      addProgress: async (_id: number, inc: Record<string, number>) => {
        writes.push(inc);
        for (const [name, n] of Object.entries(inc)) counters[name] = (counters[name] ?? 0) + n;
        // Not all settled: no completion.
        return {
          id: 42,
          company_id: 7,
          status: 'started',
          dispatch_done: true,
          settled: 0,
          total_contacts: 99,
        };
      },
    },
  };
}

describe('recording a batch of a regular campaign’s message events', () => {
  test('when a batch moves the campaign’s counts, then the console is told the campaign changed, once per campaign', async () => {
    const changed: number[] = [];
    const recipients = recipientsInMemory(
      new Map<string, State>([
        ['42:1', 'sent'],
        ['42:2', 'sent'],
      ]),
    );
    const campaigns = campaignsInMemory();
    const deps = {
      campaigns: campaigns.store,
      recipients: recipients.store,
      progressChanged: (id: number) => changed.push(id),
    } as unknown as CampaignsDeps;

    const outcomes = await createProgressRecorder(deps)([
      statusEvent(1, 'delivered'),
      statusEvent(2, 'delivered'),
      statusEvent(1, 'read'),
    ]);

    expect(outcomes).toEqual([undefined, undefined, undefined]);
    expect(campaigns.writes).toHaveLength(1);
    expect(campaigns.counters).toEqual({ delivered: 2, read: 1 });
    expect(changed).toEqual([42]);
  });
});
