import { connect, type ChannelModel } from 'amqplib';
import {
  AUTOMATED_REPLY_OPERATIONS,
  EXCHANGES,
  MessagingSendCommandSchema,
  ROUTING_KEYS,
} from '@switchboard/contracts';
import {
  startCampaignsSystem,
  uniquePhone,
  waitFor,
  type CampaignsSystem,
} from '../support/campaigns-harness';

jest.setTimeout(60_000);

let system: CampaignsSystem;
let amqp: ChannelModel;
const commands: { body: unknown; id: string }[] = [];

beforeAll(async () => {
  system = await startCampaignsSystem('autocontract');
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
  const contact = system.contacts.add(org.company_id, { name: 'Zoe', phone: uniquePhone() });
  responseOf('updateContactBots', 200).parse(
    (await org.api.post('updateContactBots', { contact_id: contact.id, enabled: true })).body,
  );
  responseOf('deleteAutomatedReplyWithPost', 200).parse(
    (await org.api.post('deleteAutomatedReply', { id })).body,
  );
});

// That messaging's message_received of a tapped button carries its id, and that the webhook
// payload stays as the spec has it, is messaging's contract test's.
test('when an inbound button reply is answered, then the published command parses with its contract', async () => {
  const org = await system.newOrganization('standard', 'Contract Answer Co');
  await org.api.post('addAutomatedReply', {
    name: 'Yes',
    kind: 'exact',
    triggers: 'yes_please',
    message: 'Great, {{name}}',
    buttons: [{ id: 'more', title: 'More' }],
  });
  const event = await system.customerWrites(org, uniquePhone(), 'Yes please', {
    message_type: 'interactive',
    reply_id: 'yes_please',
  });

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
