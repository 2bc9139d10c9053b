import type { EventRelay, Logger, QuotaCounter } from '@switchboard/service-kit';
import type { CampaignStore, StoredCampaign } from '../../data-access/campaigns/campaign-store';
import type { RecipientStore } from '../../data-access/campaigns/recipient-store';
import type { ServiceClients } from '../../outbound/service-clients';

export interface CampaignsDeps {
  campaigns: CampaignStore;
  recipients: RecipientStore;
  /** Campaigns started per organization and month. */
  quotas: QuotaCounter;
  clients: ServiceClients;
  relay: EventRelay;
  nextCampaignId(): Promise<number>;
  /** Hands one command to messaging on `svc.commands`, confirmed by the broker. */
  publishCommand(command: unknown, messageId: string): Promise<void>;
  /** Asks the dispatcher to hand a started campaign's messages over now. */
  dispatchSoon(campaign_id: number): void;
  /**
   * The campaign's counts or status moved: the console hears of it (throttled); `as`, the
   * campaign as the change left it, for a status the console must see.
   */
  progressChanged(campaign_id: number, as?: StoredCampaign): void;
  logger: Logger;
  dispatchPageSize: number;
}
