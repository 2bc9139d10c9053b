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

describe('recording a batch of a regular campaign’s message events', () => {
  test('when a batch moves the campaign’s counts, then the console is told the campaign changed, once per campaign', async () => {
    const changed: number[] = [];
    const updates: unknown[] = [];
    const deps = {
      campaigns: {
        findById: async () => ({
          id: 42,
          company_id: 7,
          type: 'regular',
          status: 'completed',
          dispatch_done: true,
          settled: 2,
          total_contacts: 2,
        }),
        update: async (...args: unknown[]) => {
          updates.push(args);
          return null;
        },
      },
      recipients: { advance: async () => 'sent' },
      progressChanged: (id: number) => changed.push(id),
    } as unknown as CampaignsDeps;

    const outcomes = await createProgressRecorder(deps)([
      statusEvent(1, 'delivered'),
      statusEvent(2, 'delivered'),
      statusEvent(1, 'read'),
    ]);

    expect(outcomes).toEqual([undefined, undefined, undefined]);
    expect(updates).toHaveLength(1);
    expect(changed).toEqual([42]);
  });
});
