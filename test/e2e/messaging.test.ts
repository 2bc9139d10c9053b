import { connect, type ChannelModel } from 'amqplib';
import {
  BrokerEventSchema,
  ConversationsResponseSchema,
  EXCHANGES,
  MessageStatusResponseSchema,
  MessagesResponseSchema,
  SendMessageResponseSchema,
  type BrokerEvent,
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
    const parsed = BrokerEventSchema.safeParse(json);
    if (parsed.success) events.push(parsed.data);
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
