import { BrokerEventSchema, type ContactCreatedData } from '@switchboard/contracts';
import { createLogger } from '@switchboard/service-kit';
import type { PendingEvent, StoredContact } from '../../src/data-access/contact-store';
import { contactEvent, pendingInOrder } from '../../src/domain/contact-events';
import { toContactView } from '../../src/domain/contact-view';
import { createContactEventRelay } from '../../src/domain/relay-contact-events';

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

test('when pending events are read, then they come in the order they were written', () => {
  const later = contactEvent('contact_updated', contact, new Date(now.getTime() + 1));
  const first = contactEvent('contact_created', contact, now);
  expect(pendingInOrder({ pending_events: { [later.id]: later, [first.id]: first } })).toEqual([
    first,
    later,
  ]);
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

  test('when publishing works, then each event is published in order, then cleared', async () => {
    const events = [
      contactEvent('contact_created', contact, now),
      contactEvent('contact_updated', contact, new Date(now.getTime() + 5)),
    ];
    const { stored, store } = fakeStore(events);
    const published: string[] = [];
    const relay = createContactEventRelay({
      store,
      publish: async (event) => {
        published.push(event.id);
      },
      logger,
      enabled: true,
      sweepIntervalMs: 60_000,
    });
    relay.relaySoon(3, 7);
    relay.relaySoon(3, 7);
    await relay.stop();
    expect(published).toEqual(events.map((event) => event.id));
    expect(stored.pending_count).toBe(0);
  });

  test('when publishing fails, then the event stays pending until a sweep publishes it', async () => {
    const event = contactEvent('contact_created', contact, now);
    const { stored, store } = fakeStore([event]);
    let brokerUp = false;
    const relay = createContactEventRelay({
      store,
      publish: async () => {
        if (!brokerUp) throw new Error('broker down');
      },
      logger,
      enabled: true,
      sweepIntervalMs: 60_000,
    });
    relay.relaySoon(3, 7);
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
    const relay = createContactEventRelay({
      store,
      publish,
      logger,
      enabled: false,
      sweepIntervalMs: 50,
    });
    relay.start();
    expect(relay.record('contact_created', contact, now)).toBeUndefined();
    relay.relaySoon(3, 7);
    await relay.flush(3, 7);
    await relay.stop();
    expect(publish).not.toHaveBeenCalled();
  });
});
