import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import {
  BrokerEventSchema,
  ContactCreatedDataSchema,
  EXCHANGES,
  type BrokerEvent,
} from '@switchboard/contracts';
import type { RunningService } from '@switchboard/service-kit';
import {
  MONGODB_URL,
  dropDatabasesWithPrefix,
  uniquePrefix,
} from '../../../../test/support/test-infra';
import { contactsConfigSchema, type ContactsConfig } from '../../src/config';
import { startService } from '../../src/start-service';
import { startContactsSystem, uniquePhone, type ContactsSystem } from '../support/contacts-harness';

jest.setTimeout(60_000);

let system: ContactsSystem;
let connection: ChannelModel;
let channel: Channel;

beforeAll(async () => {
  system = await startContactsSystem('events', {
    EMIT_RESERVED_EVENTS: 'true',
    EVENT_RELAY_SWEEP_MS: '200',
  });
  connection = await connect(system.amqpUrl);
  channel = await connection.createChannel();
});

afterAll(async () => {
  await connection?.close();
  await system?.stop();
});

/** A temporary queue bound to every event on `svc.events`, collecting what arrives. */
async function listen() {
  const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  await channel.bindQueue(queue, EXCHANGES.events, '#');
  const received: Array<{ event: BrokerEvent; message: ConsumeMessage }> = [];
  const { consumerTag } = await channel.consume(queue, (message) => {
    if (!message) return;
    received.push({
      event: BrokerEventSchema.parse(JSON.parse(message.content.toString())),
      message,
    });
    channel.ack(message);
  });
  return {
    received,
    async until(count: number, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count && Date.now() < deadline) await sleep(25);
      return received.map((entry) => entry.event);
    },
    async close() {
      await channel.cancel(consumerTag);
      await channel.deleteQueue(queue);
    },
  };
}

const pendingCount = async (db: RunningService<ContactsConfig>['db'], id: number) =>
  (await db.collection('contacts').findOne({ id }))?.pending_count as number;

describe('reserved contact events (the published event catalog)', () => {
  test('when a contact is created and updated, then contact_created and contact_updated reach svc.events', async () => {
    const listener = await listen();
    try {
      const { api, company_id } = await system.newOrganization();
      const phone = uniquePhone();
      const created = (await api.send('POST', 'makeContact', { name: 'Ana', phone })).body.contact;
      await api.send('PUT', 'updateContact', { id: created.id, email: 'ana@example.com' });

      const [first, second] = await listener.until(2);
      expect(first).toEqual({
        id: expect.any(String),
        event: 'contact_created',
        timestamp: created.created_at,
        company_id,
        data: { contact_id: created.id, name: 'Ana', phone, email: null, company_id },
      });
      expect(second).toMatchObject({
        event: 'contact_updated',
        data: { contact_id: created.id, email: 'ana@example.com' },
      });
      expect(ContactCreatedDataSchema.parse(first!.data)).toBeDefined();
      // The broker message id is the event id (consumers deduplicate on it), and it is persistent.
      const { message } = listener.received[0]!;
      expect(message.properties.messageId).toBe(first!.id);
      expect(message.properties.deliveryMode).toBe(2);
      expect(message.fields.routingKey).toBe('contact_created');
      expect(await pendingCount(system.contacts.db, created.id)).toBe(0);
    } finally {
      await listener.close();
    }
  });

  test('when a write changes nothing, then no contact_updated is published', async () => {
    const listener = await listen();
    try {
      const { api } = await system.newOrganization();
      const phone = uniquePhone();
      const created = (await api.send('POST', 'makeContact', { name: 'Ana', phone })).body.contact;
      await listener.until(1);
      await api.send('POST', 'makeContact', { name: 'Ana', phone });
      await api.send('POST', 'updateAIBot', { id: created.id, enabled: false });
      await api.send('POST', 'updateAIBot', { id: created.id, enabled: true });
      const events = await listener.until(2);
      await sleep(500);
      expect(listener.received.map((entry) => entry.event.event)).toEqual([
        'contact_created',
        'contact_updated',
      ]);
      expect(events).toHaveLength(2);
    } finally {
      await listener.close();
    }
  });

  test('when an event cannot be published, then it stays with the contact and the relay publishes it later', async () => {
    // Nothing is bound to svc.events yet: the broker returns the event as unroutable.
    const { api } = await system.newOrganization();
    const created = (
      await api.send('POST', 'makeContact', { name: 'Pending', phone: uniquePhone() })
    ).body.contact;
    await sleep(500);
    expect(await pendingCount(system.contacts.db, created.id)).toBe(1);

    const listener = await listen();
    try {
      const [event] = await listener.until(1);
      expect(event).toMatchObject({ event: 'contact_created', data: { contact_id: created.id } });
      await sleep(300);
      expect(await pendingCount(system.contacts.db, created.id)).toBe(0);
    } finally {
      await listener.close();
    }
  });

  test('when the service stops with events still pending, then a new instance publishes them on start', async () => {
    const { api } = await system.newOrganization();
    const created = (
      await api.send('POST', 'makeContact', { name: 'Restart', phone: uniquePhone() })
    ).body.contact;
    await sleep(300);
    expect(await pendingCount(system.contacts.db, created.id)).toBe(1);
    const config = system.contacts.config;
    await system.contacts.stop();

    const listener = await listen();
    const restarted = await startService({ ...config, PORT: 0, EVENT_RELAY_SWEEP_MS: 60_000 });
    try {
      const [event] = await listener.until(1);
      expect(event).toMatchObject({ event: 'contact_created', data: { contact_id: created.id } });
    } finally {
      await listener.close();
      await restarted.stop();
    }
  });
});

describe('reserved contact events switched off (the default)', () => {
  test('when contacts are created and updated with EMIT_RESERVED_EVENTS unset, then nothing is published or kept', async () => {
    const prefix = uniquePrefix('eventsoff');
    const quiet = await startService(
      contactsConfigSchema.parse({
        PORT: '0',
        MONGODB_URL,
        MONGODB_DB_PREFIX: prefix,
        AMQP_URL: system.amqpUrl,
        INTERNAL_API_SECRET: system.internalSecret,
        LOG_LEVEL: 'silent',
      }),
    );
    const listener = await listen();
    try {
      const organization = {
        company_id: 4242,
        plan: 'premium' as const,
        plan_started_at: new Date(),
      };
      const headers = {
        'content-type': 'application/json',
        'x-internal-secret': system.internalSecret,
        'x-org-id': String(organization.company_id),
        'x-org-plan': organization.plan,
        'x-org-plan-started-at': organization.plan_started_at.toISOString(),
      };
      const made = await fetch(`${quiet.url}/api/svc/makeContact`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          name: `Quiet ${randomBytes(2).toString('hex')}`,
          phone: uniquePhone(),
        }),
      });
      const { contact } = (await made.json()) as { contact: { id: number } };
      await fetch(`${quiet.url}/api/svc/updateContact`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ id: contact.id, name: 'Still quiet' }),
      });
      await sleep(700);
      expect(listener.received).toEqual([]);
      const stored = await quiet.db.collection('contacts').findOne({ id: contact.id });
      expect(stored).toMatchObject({ pending_count: 0, pending_events: {} });
    } finally {
      await listener.close();
      await quiet.stop();
      await dropDatabasesWithPrefix(prefix);
    }
  });
});
