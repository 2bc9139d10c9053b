import { connect, type ChannelModel } from 'amqplib';
import {
  BrokerEventSchema,
  CampaignResponseSchema,
  CampaignsResponseSchema,
  EVENT_PAYLOAD_SCHEMAS,
  EXCHANGES,
  MessagingSendCommandSchema,
  ROUTING_KEYS,
  SendCampaignResponseSchema,
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
const commands: unknown[] = [];

beforeAll(async () => {
  system = await startCampaignsSystem('campcontract');
  amqp = await connect(system.amqpUrl);
  const tap = await amqp.createChannel();
  const { queue } = await tap.assertQueue('', { exclusive: true });
  await tap.bindQueue(queue, EXCHANGES.commands, ROUTING_KEYS.commands.send);
  await tap.consume(queue, (message) => {
    if (!message) return;
    commands.push({
      body: JSON.parse(message.content.toString()),
      id: message.properties.messageId,
    });
    tap.ack(message);
  });
});

afterAll(async () => {
  await amqp?.close();
  await system?.stop();
});

test('when campaigns hands messages to messaging and publishes its events, then each parses with its contract schema', async () => {
  const org = await system.newOrganization('standard', 'Contract Campaigns Co');
  for (let i = 0; i < 3; i++) {
    system.contacts.add(org.company_id, {
      name: `C${i}`,
      phone: uniquePhone(),
      email: `c${i}@x.io`,
    });
  }
  const created = await org.api.post('createCampaign', {
    name: 'Contract',
    type: 'regular',
    message: { type: 'text', text: 'Hi {{1}} ({{2}})' },
    variables: ['contact.name', { field: 'email' }],
    audience: { type: 'all' },
    send_now: true,
  });
  const { campaign } = CampaignResponseSchema.parse(created.body);
  await waitFor(async () => {
    const current = CampaignResponseSchema.parse(
      (await org.api.get('getCampaign', { id: campaign.id })).body,
    );
    return current.campaign.status === 'completed' ? true : undefined;
  }, 30_000);
  CampaignsResponseSchema.parse((await org.api.get('getCampaigns')).body);

  const mine = (commands as { body: { campaign_id?: number }; id: string }[]).filter(
    (command) => command.body.campaign_id === campaign.id,
  );
  expect(mine).toHaveLength(3);
  for (const command of mine) {
    const parsed = MessagingSendCommandSchema.parse(command.body);
    expect(command.id).toBe(parsed.idempotency_key);
    expect(parsed).toMatchObject({ quota_reserved: true, content: { type: 'text' } });
  }

  const api = await org.api.post('createCampaign', {
    name: 'Api',
    type: 'api',
    message: { type: 'text', text: 'Code {{1}}' },
    variables: ['data.code'],
  });
  const sent = await org.api.post('sendcampaigns', {
    phone: uniquePhone(),
    campaing_id: api.body.campaign.id,
    data: { code: '1234' },
  });
  SendCampaignResponseSchema.parse(sent.body);

  for (const name of ['campaign_started', 'campaign_completed'] as const) {
    const events = system.events.filter(
      (event) => event.event === name && (event.data as { id: number }).id === campaign.id,
    );
    expect(events).toHaveLength(1);
    BrokerEventSchema.parse(events[0]);
    EVENT_PAYLOAD_SCHEMAS[name].parse(events[0]!.data);
  }
  expect(system.invalidEvents).toEqual([]);
});
