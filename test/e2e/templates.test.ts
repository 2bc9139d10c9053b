// Every service its own process: a template is created through the gateway,
// approved by the provider's webhook through inbound and the broker, then sent.
import {
  EXCHANGES,
  TemplateResponseSchema,
  TemplatesResponseSchema,
  type BrokerEvent,
} from '@switchboard/contracts';
import { connect, type ChannelModel } from 'amqplib';
import { startE2eSystem, until, type E2eSystem } from '../support/e2e-system';
import { jsonBody } from '../support/test-infra';

jest.setTimeout(120_000);

let e2e: E2eSystem;
let amqp: ChannelModel;
const events: BrokerEvent[] = [];

beforeAll(async () => {
  e2e = await startE2eSystem('e2etpl', {
    EMIT_RESERVED_EVENTS: 'true',
    SIM_TEMPLATE_REVIEW_DELAY_MS: '300',
  });
  amqp = await connect(e2e.amqpUrl);
  const tap = await amqp.createChannel();
  const { queue } = await tap.assertQueue('', { exclusive: true });
  for (const name of ['template_approved', 'template_rejected']) {
    await tap.bindQueue(queue, EXCHANGES.events, name);
  }
  await tap.consume(queue, (message) => {
    if (!message) return;
    events.push(JSON.parse(message.content.toString()) as BrokerEvent);
    tap.ack(message);
  });
});

afterAll(async () => {
  await amqp?.close();
  await e2e?.stop();
});

test('when a template is created, approved by the provider and sent, then the provider receives it; another organization cannot use it', async () => {
  const org = await e2e.createOrganization('Template Co', 'standard');
  const client = e2e.api(org.token);
  const created = await client.post('createTemplate', {
    name: 'welcome_offer',
    language: 'en',
    category: 'MARKETING',
    components: [{ type: 'BODY', text: 'Welcome {{1}}!', example: { body_text: [['Ana']] } }],
  });
  expect(created.status).toBe(201);
  expect(TemplateResponseSchema.parse(created.body).template.status).toBe('PENDING');

  await until(async () => {
    const listed = TemplatesResponseSchema.parse((await client.get('getTemplates')).body);
    return listed.templates[0]?.status === 'APPROVED' ? true : undefined;
  }, 'the approval webhook');
  await until(
    async () => events.find((event) => event.event === 'template_approved'),
    'template_approved on the broker',
  );

  const sent = await client.post('sendtemplatemessage', {
    phone: '393471239999',
    template_name: 'welcome_offer',
    template_language: 'en',
    components: [{ type: 'body', parameters: [{ type: 'text', text: 'Marta' }] }],
  });
  expect(sent.status).toBe(200);
  const record = await jsonBody(
    await fetch(`${e2e.simulator}/sim/sent?wamid=${String(sent.body.message_wamid)}`),
  );
  expect(record.sent[0].request.template).toMatchObject({
    name: 'welcome_offer',
    language: { code: 'en' },
  });

  const stranger = e2e.api((await e2e.createOrganization('Stranger Co', 'standard')).token);
  const refused = await stranger.post('sendtemplatemessage', {
    phone: '393471239999',
    template_name: 'welcome_offer',
    template_language: 'en',
    components: [{ type: 'body', parameters: [{ type: 'text', text: 'Marta' }] }],
  });
  expect(refused.status).toBe(404);
});
