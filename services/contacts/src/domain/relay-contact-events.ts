import {
  jobRunCounter,
  runInTraceContext,
  splitPending,
  type Leases,
  type Logger,
} from '@switchboard/service-kit';
import type { ContactStore, PendingEvent } from '../data-access/contact-store';
import { contactEvent, pendingInOrder, type ContactEventOutbox } from './contact-events';

export interface ContactEventRelayOptions {
  store: Pick<ContactStore, 'findById' | 'withPendingEvents' | 'clearPendingEvent'>;
  /** Resolves once the broker has confirmed the event. */
  publish: (event: PendingEvent) => Promise<void>;
  logger: Logger;
  enabled: boolean;
  sweepIntervalMs: number;
  /** Contacts looked at per sweep. */
  sweepBatch?: number;
  /** With several replicas: only the holder of this relay's lease sweeps. */
  leases?: Leases;
}

const SWEEP_LEASE = 'contact-event-relay';

export interface ContactEventRelay extends ContactEventOutbox {
  /** Publishes what writes left pending (broker down, process died), oldest first. */
  sweep(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * The outbox relay: publish each pending event, then clear it from its contact. An event is
 * cleared only after the broker confirmed it, so a crash in between publishes it again later
 * (at least once; consumers deduplicate on the event id, which is the message id).
 */
export function createContactEventRelay(options: ContactEventRelayOptions): ContactEventRelay {
  const { store, publish, logger, enabled } = options;
  const log = logger.child({ component: 'contact-event-relay' });
  // One relay at a time per contact, so that its events go out in order and only once per process.
  const chains = new Map<number, Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> | undefined;
  let stopped = false;
  const countSweep = jobRunCounter(SWEEP_LEASE);

  async function relayContact(company_id: number, id: number): Promise<void> {
    const contact = await store.findById(company_id, id);
    if (!contact) return;
    for (const pending of pendingInOrder(contact)) {
      // Published in the trace of the write that stored it.
      const { event, traceContext } = splitPending(pending);
      await runInTraceContext(traceContext, () => publish(event));
      await store.clearPendingEvent(company_id, id, event.id);
    }
  }

  function enqueue(company_id: number, id: number): Promise<void> {
    const previous = chains.get(id) ?? Promise.resolve();
    const next = previous
      .then(() => relayContact(company_id, id))
      .catch((error: unknown) => {
        log.warn({ err: error, contact_id: id }, 'contact events not published yet; will retry');
      });
    chains.set(id, next);
    void next.then(() => {
      if (chains.get(id) === next) chains.delete(id);
    });
    return next;
  }

  async function sweep(): Promise<void> {
    if (!enabled) return;
    const contacts = await store.withPendingEvents(options.sweepBatch ?? 100);
    await Promise.all(contacts.map((contact) => enqueue(contact.company_id, contact.id)));
  }

  async function sweepIfHeld(): Promise<void> {
    if (options.leases && !(await options.leases.hold(SWEEP_LEASE))) return;
    countSweep();
    await sweep();
  }

  function sweepInBackground(): void {
    if (sweeping || stopped) return;
    sweeping = sweepIfHeld()
      .catch((error: unknown) => log.warn({ err: error }, 'contact event sweep failed'))
      .finally(() => {
        sweeping = undefined;
      });
  }

  return {
    record: (event, contact, now) => (enabled ? contactEvent(event, contact, now) : undefined),
    relaySoon(company_id, id) {
      if (enabled && !stopped) void enqueue(company_id, id);
    },
    flush: (company_id, id) => (enabled ? enqueue(company_id, id) : Promise.resolve()),
    sweep,
    start() {
      if (!enabled || timer) return;
      sweepInBackground();
      timer = setInterval(sweepInBackground, options.sweepIntervalMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await sweeping;
      await Promise.all([...chains.values()]);
    },
  };
}
