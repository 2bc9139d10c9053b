import { connect, type ChannelModel } from 'amqplib';
import {
  AUTOMATED_REPLY_OPERATIONS,
  BrokerEventSchema,
  EXCHANGES,
  GATEWAY_INTERNAL_PATHS,
  INTERNAL_SECRET_HEADER,
  MessagingSendCommandSchema,
  OrganizationResponseSchema,
  ROUTING_KEYS,
  WebhookEnvelopeSchema,
  toWebhookEnvelope,
} from '@switchboard/contracts';
import {
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type MessagingSystem,
} from '../support/system-harness';

jest.setTimeout(60_000);

let system: MessagingSystem;
let amqp: ChannelModel;
const commands: { body: unknown; id: string }[] = [];

beforeAll(async () => {
  system = await startMessagingSystem('autocontract', { campaignsEnv: {} });
  amqp = await connect(system.amqpUrl);
  const tap = await amqp.createChannel();
  const { queue } = await tap.assertQueue('', { exclusive: true });
  await tap.bindQueue(queue, EXCHANGES.commands, ROUTING_KEYS.commands.send);
  await tap.consume(queue, (message) => {
    if (!message) return;
    commands.push({
      body: JSON.parse(message.content.toString()),
      id: String(message.properties.messageId),
    });
    tap.ack(message);
  });
});

afterAll(async () => {
  await amqp?.close();
  await system?.stop();
});

/** The documented success schema of an operation, by its operationId. */
const responseOf = (operationId: string, status: number) => {
  const operation = AUTOMATED_REPLY_OPERATIONS.find((item) => item.operationId === operationId)!;
  return (operation.responses as Record<number, { parse(value: unknown): unknown }>)[status]!;
};

test('when the automated reply operations answer, then each answer parses with its documented schema', async () => {
  const org = await system.newOrganization('standard', 'Contract Replies Co');
  const added = await org.api.post('addAutomatedReply', {
    name: 'Hi',
    kind: 'exact',
    triggers: 'hi',
    message: 'Hello {{name}}',
    header: 'Shop',
    footer: 'Reply STOP to stop',
    buttons: 'Menu, Hours',
  });
  expect(added.status).toBe(201);
  responseOf('addAutomatedReply', 201).parse(added.body);
  responseOf('getAutomatedReplies', 200).parse((await org.api.get('getAutomatedReplies')).body);
  const id = (added.body.reply as { id: number }).id;
  responseOf('updateAutomatedReplyWithPost', 200).parse(
    (await org.api.post('updateAutomatedReply', { id, active: false })).body,
  );
  const phone = uniquePhone();
  await org.api.post('makeContact', { name: 'Zoe', phone });
  const contact = (await org.api.get('getSingleContact', { phone })).body.contact as { id: number };
  responseOf('updateContactBots', 200).parse(
    (await org.api.post('updateContactBots', { contact_id: contact.id, enabled: true })).body,
  );
  responseOf('deleteAutomatedReplyWithPost', 200).parse(
    (await org.api.post('deleteAutomatedReply', { id })).body,
  );
});

test('when an inbound button reply is answered, then the event and the published command parse with their contracts and the webhook payload stays as the spec has it', async () => {
  const org = await system.newOrganization('standard', 'Contract Answer Co');
  await org.api.post('addAutomatedReply', {
    name: 'Yes',
    kind: 'exact',
    triggers: 'yes_please',
    message: 'Great, {{name}}',
    buttons: [{ id: 'more', title: 'More' }],
  });
  const injected = await system.sim('POST', '/inbound', {
    phone_number_id: org.created.channel.phone_number_id,
    from: uniquePhone(),
    button_reply: { id: 'yes_please', title: 'Yes please' },
  });
  const event = await waitFor(() =>
    system.events.find(
      (item) => item.event === 'message_received' && item.data.message_wamid === injected.wamid,
    ),
  );
  expect(BrokerEventSchema.parse(event)).toMatchObject({ reply_id: 'yes_please' });
  const envelope = toWebhookEnvelope(event);
  expect(Object.keys(envelope).sort()).toEqual(['data', 'event', 'timestamp']);
  WebhookEnvelopeSchema.parse(envelope);

  const messageId = (event.data as { message_id: number }).message_id;
  const command = await waitFor(() =>
    commands.find((item) => item.id === `automation:${messageId}`),
  );
  const parsed = MessagingSendCommandSchema.parse(command.body);
  expect(parsed).toMatchObject({
    company_id: org.company_id,
    idempotency_key: `automation:${messageId}`,
    quota_hold: `automation:${messageId}`,
    content: {
      type: 'text',
      message: 'Great, Test User',
      buttons: [{ id: 'more', title: 'More' }],
    },
  });
  expect(system.invalidEvents).toEqual([]);
});

test('when campaigns asks the gateway for an organization, then the answer parses, and the route is closed without the internal secret', async () => {
  const org = await system.newOrganization('premium', 'Contract Plan Co');
  const url = `${system.stack.gateway.url}${GATEWAY_INTERNAL_PATHS.organization(org.company_id)}`;
  const answer = await fetch(url, { headers: { [INTERNAL_SECRET_HEADER]: system.internalSecret } });
  expect(answer.status).toBe(200);
  expect(OrganizationResponseSchema.parse(await answer.json()).organization).toMatchObject({
    company_id: org.company_id,
    plan: 'premium',
  });
  expect((await fetch(url)).status).toBe(403);
  const unknown = await fetch(
    `${system.stack.gateway.url}${GATEWAY_INTERNAL_PATHS.organization(99_999_999)}`,
    { headers: { [INTERNAL_SECRET_HEADER]: system.internalSecret } },
  );
  expect(unknown.status).toBe(404);
});
