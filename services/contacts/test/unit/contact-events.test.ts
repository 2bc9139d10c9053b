import { BrokerEventSchema, type ContactCreatedData } from '@switchboard/contracts';
import { createEventRelay, createLogger } from '@switchboard/service-kit';
import {
  contactOutbox,
  type PendingEvent,
  type StoredContact,
} from '../../src/data-access/contact-store';
import { contactEvent, contactEventOutbox } from '../../src/domain/contact-events';
import { toContactView } from '../../src/domain/contact-view';

const now = new Date('2026-11-02T10:00:00.000Z');
const contact: StoredContact = {
  id: 7,
  company_id: 3,
  name: 'Ana',
  phone: '393471234567',
  email: null,
  language: null,
  subscription: 'subscribed',
  group_ids: [5, 9, 5],
  custom: { city: 'Rome' },
  ai_bot_enabled: false,
  created_at: now,
  updated_at: now,
  pending_events: {},
  pending_count: 0,
};

test('when a contact event is built, then it is a valid broker event with the provisional payload', () => {
  const event = contactEvent('contact_created', contact, now);
  expect(BrokerEventSchema.parse(event)).toEqual(event);
  expect(event.data).toEqual<ContactCreatedData>({
    contact_id: 7,
    name: 'Ana',
    phone: '393471234567',
    email: null,
    company_id: 3,
  });
});

test('when a contact is shown, then groups that no longer exist are left out and the rest sorted', () => {
  const view = toContactView(
    contact,
    new Map([
      [9, 'VIP'],
      [5, 'Leads'],
    ]),
  );
  expect(view.groups).toEqual([
    { id: 5, name: 'Leads' },
    { id: 9, name: 'VIP' },
  ]);
  expect(toContactView(contact, new Map([[9, 'VIP']])).groups).toEqual([{ id: 9, name: 'VIP' }]);
});

describe('the outbox relay', () => {
  function fakeStore(events: PendingEvent[]) {
    const stored = {
      ...contact,
      pending_events: Object.fromEntries(events.map((event) => [event.id, event])),
      pending_count: events.length,
    };
    return {
      stored,
      store: {
        findById: async () => structuredClone(stored),
        withPendingEvents: async () => (stored.pending_count > 0 ? [structuredClone(stored)] : []),
        clearPendingEvent: async (_company: number, _id: number, eventId: string) => {
          if (stored.pending_events[eventId]) {
            delete stored.pending_events[eventId];
            stored.pending_count -= 1;
          }
        },
      },
    };
  }
  const logger = createLogger('relay-test', 'silent');

  /** The contacts' outbox on the kit's relay, as start-service wires it. */
  function relayOf(
    store: ReturnType<typeof fakeStore>['store'],
    publish: (event: { id: string }) => Promise<void>,
    enabled = true,
  ) {
    const source = contactOutbox(store);
    const relay = createEventRelay({
      sources: enabled ? [source] : [],
      publish,
      logger,
      sweepIntervalMs: 60_000,
      graceMs: 0,
    });
    return { relay, events: contactEventOutbox(relay, source, enabled) };
  }

  test('when publishing works, then each event is published in order, then cleared', async () => {
    const events = [
      contactEvent('contact_created', contact, now),
      contactEvent('contact_updated', contact, new Date(now.getTime() + 5)),
    ];
    const { stored, store } = fakeStore(events);
    const published: string[] = [];
    const { relay, events: outbox } = relayOf(store, async (event) => {
      published.push(event.id);
    });
    outbox.relaySoon(3, 7);
    outbox.relaySoon(3, 7);
    await relay.stop();
    expect(published).toEqual(events.map((event) => event.id));
    expect(stored.pending_count).toBe(0);
  });

  test('when publishing fails, then the event stays pending until a sweep publishes it', async () => {
    const event = contactEvent('contact_created', contact, now);
    const { stored, store } = fakeStore([event]);
    let brokerUp = false;
    const { relay, events: outbox } = relayOf(store, async () => {
      if (!brokerUp) throw new Error('broker down');
    });
    outbox.relaySoon(3, 7);
    await relay.sweep();
    expect(stored.pending_count).toBe(1);
    brokerUp = true;
    await relay.sweep();
    expect(stored.pending_count).toBe(0);
    await relay.stop();
  });

  test('when reserved events are off, then nothing is recorded or published', async () => {
    const { store } = fakeStore([]);
    const publish = jest.fn(async () => undefined);
    const { relay, events: outbox } = relayOf(store, publish, false);
    relay.start();
    expect(outbox.record('contact_created', contact, now)).toBeUndefined();
    outbox.relaySoon(3, 7);
    await outbox.flush(3, 7);
    await relay.sweep();
    await relay.stop();
    expect(publish).not.toHaveBeenCalled();
  });
});
