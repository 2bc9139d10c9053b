import { connect, type ChannelModel } from 'amqplib';
import {
  BrokerEventMessageSchema,
  brokerEventsOf,
  CampaignResponseSchema,
  ConversationsResponseSchema,
  EXCHANGES,
  MessageStatusResponseSchema,
  MessagesResponseSchema,
  SendMessageResponseSchema,
  UsageResponseSchema,
  type BrokerEvent,
  type UsageResponse,
} from '@switchboard/contracts';
import { startE2eSystem, until, type E2eSystem } from '../support/e2e-system';
import { jsonBody } from '../support/test-infra';

jest.setTimeout(120_000);

let e2e: E2eSystem;
let amqp: ChannelModel;
const events: BrokerEvent[] = [];
const invalid: unknown[] = [];

beforeAll(async () => {
  e2e = await startE2eSystem('e2emsg', { SIM_STATUS_DELAYS_MS: '100,100,100' });

  // Everything messaging publishes on svc.events, checked against contracts as it arrives.
  amqp = await connect(e2e.amqpUrl);
  const tap = await amqp.createChannel();
  const { queue } = await tap.assertQueue('', { exclusive: true });
  await tap.bindQueue(queue, EXCHANGES.events, '#');
  await tap.consume(queue, (message) => {
    if (!message) return;
    const json: unknown = JSON.parse(message.content.toString());
    // One event, or a batch of the events one write stored.
    const parsed = BrokerEventMessageSchema.safeParse(json);
    if (parsed.success) events.push(...brokerEventsOf(parsed.data));
    else invalid.push(json);
    tap.ack(message);
  });
});

afterAll(async () => {
  await amqp?.close();
  await e2e?.stop();
});

describe('the message lifecycle, every process on its own, through the gateway', () => {
  test('when a text is sent and the end user answers, then status reaches read and the answer is in the inbox', async () => {
    const org = await e2e.createOrganization('Lifecycle Co');
    const client = e2e.api(org.token);
    const simulator = e2e.simulator;
    const phone = '393471230001';

    // 1. The send, through the gateway.
    const sent = await client.post('sendMessageToPhoneNumber', {
      phone,
      message: 'Your order shipped',
    });
    expect(sent.status).toBe(200);
    const { message_id, message_wamid } = SendMessageResponseSchema.parse(sent.body);

    // 2. The simulator received exactly what the Cloud API documents.
    const received = await jsonBody(await fetch(`${simulator}/sim/sent?wamid=${message_wamid}`));
    expect(received.sent).toHaveLength(1);
    expect(received.sent[0].phone_number_id).toBe(org.channel.phone_number_id);
    expect(received.sent[0].request).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: phone,
      type: 'text',
      text: { body: 'Your order shipped' },
      biz_opaque_callback_data: expect.stringMatching(new RegExp(`^sb:${message_id}:\\d+:0$`)),
    });

    // 3. Its signed status webhooks came back through the gateway and inbound: read.
    const status = await until(async () => {
      const answer = await client.get('getMessageStatus', { message_id });
      return answer.body.message_status === 'read' ? answer.body : undefined;
    }, 'status read');
    const parsedStatus = MessageStatusResponseSchema.parse(status);
    expect(parsedStatus.status_times.delivered).not.toBeNull();

    // 4. The end user answers: it shows in getMessages and getConversations.
    const injected = await fetch(`${simulator}/sim/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        phone_number_id: org.channel.phone_number_id,
        from: phone,
        profile_name: 'Marta',
        text: 'Thanks!',
      }),
    });
    expect(injected.status).toBe(200);
    const contact = (await client.get('getSingleContact', { phone })).body.contact as {
      id: number;
    };
    const messages = await until(async () => {
      const answer = await client.get('getMessages', { contact_id: contact.id });
      return answer.body.messages?.length === 2 ? answer.body : undefined;
    }, 'the inbound message in getMessages');
    const parsedMessages = MessagesResponseSchema.parse(messages);
    expect(parsedMessages.messages.map((m) => [m.direction, m.message])).toEqual([
      ['inbound', 'Thanks!'],
      ['outbound', 'Your order shipped'],
    ]);
    const conversations = ConversationsResponseSchema.parse(
      (await client.get('getConversations')).body,
    );
    expect(conversations.conversations).toEqual([
      expect.objectContaining({
        contact_id: contact.id,
        contact_name: 'Marta',
        unread_count: 1,
        last_message: expect.objectContaining({ direction: 'inbound', message: 'Thanks!' }),
      }),
    ]);

    // 5. Every event on svc.events validated; the lifecycle's events are there, once each.
    const names = await until(async () => {
      const mine = events.filter((event) => event.company_id === org.organization.company_id);
      const list = mine.map((event) => event.event).sort();
      return list.length >= 5 ? list : undefined;
    }, 'the lifecycle events');
    expect(names).toEqual([
      'message_received',
      'message_sent',
      'message_status_updated',
      'message_status_updated',
      'message_status_updated',
    ]);
    expect(invalid).toEqual([]);
  });
});

describe('getUsage: the counters each quota is enforced with, read through the gateway from each service', () => {
  let phoneSeq = 0;
  const phone = () => `39347125${String((phoneSeq += 1)).padStart(4, '0')}`;
  async function usageOf(client: ReturnType<E2eSystem['api']>): Promise<UsageResponse> {
    const answer = await client.get('getUsage');
    expect(answer.status).toBe(200);
    return UsageResponseSchema.parse(answer.body);
  }

  test('when a message is sent and a campaign runs, then their counts move for that organization only', async () => {
    const org = e2e.api((await e2e.createOrganization('Usage Co', 'free')).token);
    const other = e2e.api((await e2e.createOrganization('Other Co', 'standard')).token);
    expect(await usageOf(org)).toMatchObject({
      plan: 'free',
      month: new Date().toISOString().slice(0, 7),
      usage: {
        messages: { used: 0, limit: 100 },
        campaigns: { used: 0, limit: 2 },
        contacts: { used: 0, limit: 100 },
        agents: { used: 0, limit: 1 },
      },
      unavailable: [],
    });

    const sent = await org.post('sendMessageToPhoneNumber', {
      phone: phone(),
      message: 'Your order shipped',
    });
    expect(sent.status).toBe(200);
    const afterSend = await usageOf(org);
    expect(afterSend.usage.messages.used).toBe(1);
    // The send stored its recipient as a contact.
    expect(afterSend.usage.contacts.used).toBe(1);
    expect(afterSend.usage.campaigns.used).toBe(0);

    const created = await org.post('createCampaign', {
      name: 'Usage news',
      type: 'regular',
      message: { type: 'text', text: 'News' },
      audience: { type: 'all' },
      send_now: true,
    });
    expect(created.status).toBe(201);
    const { campaign } = CampaignResponseSchema.parse(created.body);
    await until(
      async () => {
        const answer = await org.get('getCampaign', { id: campaign.id });
        return answer.body.campaign?.status === 'completed' ? true : undefined;
      },
      'the campaign completed',
      30_000,
    );
    const afterCampaign = await usageOf(org);
    expect(afterCampaign.usage.campaigns.used).toBe(1);
    // Its one recipient's message.
    expect(afterCampaign.usage.messages.used).toBe(2);

    // The other organization's counts did not move; its plan has other limits.
    expect(await usageOf(other)).toMatchObject({
      plan: 'standard',
      usage: {
        messages: { used: 0, limit: null },
        campaigns: { used: 0, limit: 100 },
        contacts: { used: 0, limit: null },
        agents: { used: 0, limit: 10 },
      },
      unavailable: [],
    });
  });

  test('when campaigns is stopped, then the other quotas are answered and campaigns is named unavailable', async () => {
    const org = e2e.api((await e2e.createOrganization('Partial Co', 'premium')).token);
    expect(
      (await org.post('sendMessageToPhoneNumber', { phone: phone(), message: 'Hi' })).status,
    ).toBe(200);
    await e2e.system.stopService('campaigns');
    try {
      const usage = await usageOf(org);
      expect(usage.unavailable).toEqual(['campaigns']);
      expect(usage.usage.campaigns).toEqual({ used: null, limit: 500 });
      expect(usage.usage.messages).toEqual({ used: 1, limit: null });
      expect(usage.usage.contacts).toEqual({ used: 1, limit: null });
    } finally {
      await e2e.system.startService('campaigns');
    }
  });
});
