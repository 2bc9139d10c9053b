import {
  createEventRelay,
  eventPublisher,
  createIdBlocks,
  nextId,
  startPeriodicJob,
  startServiceRuntime,
  type PeriodicJob,
  type RunningService,
} from '@switchboard/service-kit';
import type { ContactsConfig } from './config';
import { contactOutbox, createContactStore } from './data-access/contact-store';
import { createGroupStore } from './data-access/group-store';
import { createQuotaStore } from './data-access/quota-store';
import { contactEventOutbox } from './domain/contact-events';
import type { ContactsDeps } from './domain/dependencies';
import { reconcileContactQuotas } from './domain/reconcile-contact-quotas';
import { contactRoutes } from './entry-points/http/contact-routes';
import { groupRoutes } from './entry-points/http/group-routes';
import { internalRoutes } from './entry-points/http/internal-routes';

const CONTACT_ID_BLOCKS = { maxBlock: 64, maxAgeMs: 1000 };

/** Contacts and groups of every organization, the contact quota, and the reserved contact events. */
export function startService(config: ContactsConfig): Promise<RunningService<ContactsConfig>> {
  return startServiceRuntime({
    service: 'contacts',
    config,
    async setup({ db, broker, logger, leases }) {
      const contacts = createContactStore(db);
      const groups = createGroupStore(db);
      await Promise.all([contacts.init(), groups.init()]);

      const outbox = contactOutbox(contacts);
      const relay = createEventRelay({
        sources: config.EMIT_RESERVED_EVENTS ? [outbox] : [],
        publish: eventPublisher(broker, 'contacts'),
        logger,
        sweepIntervalMs: config.EVENT_RELAY_SWEEP_MS,
        // Every write relays its own events at once; a sweep that meets one still on its way
        // publishes it again, which consumers deduplicate by event id.
        graceMs: 0,
        leases,
      });
      // Contact ids come from blocks this process reserves, not one counter write per new contact
      // (a send to a new number creates one); with replicas they follow creation order to within
      // a block's age, as message ids do.
      const nextContactId = createIdBlocks(db, 'contacts', CONTACT_ID_BLOCKS);
      const deps: ContactsDeps = {
        contacts,
        groups,
        quotas: createQuotaStore(db),
        nextContactId,
        nextGroupId: () => nextId(db, 'groups'),
        events: contactEventOutbox(relay, outbox, config.EMIT_RESERVED_EVENTS),
      };
      let reconcile: PeriodicJob | undefined;
      return {
        routes: (router) => {
          contactRoutes(router, deps);
          groupRoutes(router, deps);
          internalRoutes(router, deps);
        },
        // Started once HTTP listens and the broker is connected: picks up what a previous run left.
        startConsumers: async () => {
          relay.start();
          reconcile = startPeriodicJob({
            name: 'contact-quota-reconcile',
            everyMs: config.QUOTA_RECONCILE_EVERY_MS,
            logger,
            leases,
            run: async () => {
              await reconcileContactQuotas(
                { contacts, quotas: deps.quotas, logger },
                config.QUOTA_RECONCILE_SETTLE_MS,
              );
            },
          });
        },
        onStop: async () => {
          await reconcile?.stop();
          await relay.stop();
        },
      };
    },
  });
}
