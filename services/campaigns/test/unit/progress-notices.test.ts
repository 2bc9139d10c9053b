import type { CampaignProgressEvent } from '@switchboard/contracts';
import type { Logger } from '@switchboard/service-kit';
import type { StoredCampaign } from '../../src/data-access/campaigns/campaign-store';
import { createProgressNotices } from '../../src/domain/campaigns/progress-notices';

const campaign = (status: string) =>
  ({
    id: 9,
    company_id: 3,
    status,
    total_contacts: 6,
    sent: 0,
    delivered: 0,
    read: 0,
    failed: 0,
  }) as unknown as StoredCampaign;

describe('campaign progress notices', () => {
  test('when a campaign moves after a quiet spell, then its notice goes out at once, and the next ones no sooner than the interval after it', async () => {
    let current = campaign('started');
    const published: { at: number; event: CampaignProgressEvent }[] = [];
    const notices = createProgressNotices({
      findMany: async () => [current],
      publish: async (event) => {
        published.push({ at: Date.now(), event });
      },
      logger: { warn: () => undefined } as unknown as Logger,
      everyMs: 400,
    });
    const startedAt = Date.now();
    notices.changed(9);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Out before the interval: a campaign that completes within it was still seen started.
    expect(published.map((p) => p.event.data.status)).toEqual(['started']);
    expect(published[0]!.at - startedAt).toBeLessThan(400);

    current = campaign('completed');
    notices.changed(9);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(published).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(published.map((p) => p.event.data.status)).toEqual(['started', 'completed']);
    expect(published[1]!.at - published[0]!.at).toBeGreaterThanOrEqual(395);
    await notices.stop();
  });

  test('when a campaign starts, then its notice says started as the start left it, even if the campaign completed before it could be read back', async () => {
    const published: { at: number; event: CampaignProgressEvent }[] = [];
    let reads = 0;
    const notices = createProgressNotices({
      // Read back, the campaign has completed already (a short campaign on a busy machine).
      findMany: async () => {
        reads += 1;
        return [{ ...campaign('completed'), sent: 6 } as StoredCampaign];
      },
      publish: async (event) => {
        published.push({ at: Date.now(), event });
      },
      logger: { warn: () => undefined } as unknown as Logger,
      everyMs: 300,
    });
    notices.changed(9, campaign('started'));
    notices.changed(9);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(published.map((p) => p.event.data)).toEqual([
      expect.objectContaining({ campaign_id: 9, status: 'started', total: 6, sent: 0 }),
    ]);
    expect(reads).toBe(0);
    // The change after it waits out the interval, and is read back then.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(published.map((p) => p.event.data.status)).toEqual(['started', 'completed']);
    expect(published[1]!.at - published[0]!.at).toBeGreaterThanOrEqual(295);
    await notices.stop();
  });
});
