import type { Router } from 'express';
import type { Connection } from 'mongoose';
import { EXCHANGES } from '@switchboard/contracts';
import {
  createEventRelay,
  eventPublisher,
  nextId,
  type Broker,
  type Leases,
  type Logger,
  type PeriodicJob,
} from '@switchboard/service-kit';
import type { CampaignsConfig } from './config';
import { createCampaignQuota } from './data-access/campaigns/campaign-quota-store';
import { createCampaignStore } from './data-access/campaigns/campaign-store';
import { createRecipientStore } from './data-access/campaigns/recipient-store';
import type { CampaignsDeps } from './domain/campaigns/dependencies';
import { createProgressNotices } from './domain/campaigns/progress-notices';
import { consumeProgressEvents } from './entry-points/broker/campaigns/progress-consumer';
import { campaignRoutes } from './entry-points/http/campaigns/campaign-routes';
import { usageRoutes } from './entry-points/http/campaigns/usage-routes';
import { createDispatcher, startCampaignJobs } from './entry-points/jobs/campaigns/campaign-jobs';
import type { ServiceClients } from './outbound/service-clients';

/**
 * Campaigns to an audience and on call: their stores, the outbox relay of their events, the
 * progress notices to the console, the dispatcher, the scheduler, the progress consumer and the
 * campaign routes.
 */
export async function startCampaigns(deps: {
  config: CampaignsConfig;
  db: Connection;
  broker: Broker | undefined;
  clients: ServiceClients;
  publishCommand: CampaignsDeps['publishCommand'];
  logger: Logger;
  leases?: Leases;
}) {
  const { config, db, broker, logger, leases } = deps;
  const campaigns = createCampaignStore(db);
  const recipients = createRecipientStore(db);
  await Promise.all([campaigns.init(), recipients.init()]);
  const relay = createEventRelay({
    sources: [campaigns.outbox],
    publish: eventPublisher(broker, 'campaigns'),
    logger,
    sweepIntervalMs: config.EVENT_RELAY_SWEEP_MS,
    graceMs: config.EVENT_RELAY_GRACE_MS,
    leases,
  });
  const notices = createProgressNotices({
    findMany: (ids) => campaigns.findManyByIds(ids),
    publish: eventPublisher(broker, 'campaigns', EXCHANGES.console),
    logger,
  });
  const base = {
    campaigns,
    recipients,
    quotas: createCampaignQuota(db),
    clients: deps.clients,
    relay,
    nextCampaignId: () => nextId(db, 'campaigns'),
    publishCommand: deps.publishCommand,
    logger,
    dispatchPageSize: config.DISPATCH_PAGE_SIZE,
    progressChanged: notices.changed,
  };
  const dispatcher = createDispatcher(base);
  const campaignsDeps: CampaignsDeps = { ...base, dispatchSoon: dispatcher.dispatchSoon };
  let jobs: PeriodicJob | undefined;

  return {
    /** What automation may ask of campaigns: the organization's active bot campaigns. */
    activeBotCampaigns: (company_id: number) => campaigns.findActiveBotCampaigns(company_id),
    routes(router: Router): void {
      campaignRoutes(router, campaignsDeps);
      usageRoutes(router, campaignsDeps);
    },
    async startConsumers(): Promise<void> {
      if (broker) await consumeProgressEvents(broker, campaignsDeps, config.PROGRESS_PREFETCH);
      relay.start();
      jobs = startCampaignJobs(campaignsDeps, config.SCHEDULER_INTERVAL_MS, leases);
    },
    async stop(): Promise<void> {
      await jobs?.stop();
      await dispatcher.idle();
      await notices.stop();
      await relay.stop();
    },
  };
}
