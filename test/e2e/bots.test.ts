// Every process on its own: a three-step flow with buttons runs to the end
// through button replies injected at the provider simulator, and the AI bot answers through the
// message_received pipeline with the conversation as context.
import type { CreateOrganizationResponse } from '@switchboard/contracts';
import { orderFlow } from '../../services/campaigns/test/support/flow-fixtures';
import {
  startChatCompletionsServer,
  type ChatCompletionsServer,
} from '../../services/campaigns/test/support/chat-completions-server';
import { startE2eSystem, until, type ApiClient, type E2eSystem } from '../support/e2e-system';
import { jsonBody } from '../support/test-infra';

jest.setTimeout(120_000);

let e2e: E2eSystem;
let chat: ChatCompletionsServer;

beforeAll(async () => {
  chat = await startChatCompletionsServer();
  e2e = await startE2eSystem('e2ebots', {
    SIM_STATUS_DELAYS_MS: '100,100,100',
    ALLOW_PRIVATE_URLS: 'true',
  });
});

afterAll(async () => {
  await e2e?.stop();
  await chat?.stop();
});

interface SentRecord {
  request: {
    type: string;
    text?: { body: string };
    interactive?: { body: { text: string }; action: { buttons: { reply: { id: string } }[] } };
  };
}

async function sentTo(phone: string): Promise<SentRecord[]> {
  return (await jsonBody(await fetch(`${e2e.simulator}/sim/sent?to=${phone}`)))
    .sent as SentRecord[];
}

const textOf = (record: SentRecord) =>
  record.request.interactive?.body.text ?? record.request.text?.body;

/** The customer writes (text or a tapped button); resolves with the text of our next answer. */
async function customerSays(
  org: CreateOrganizationResponse,
  from: string,
  message: { text: string } | { button_reply: { id: string; title: string } },
): Promise<string | undefined> {
  const before = (await sentTo(from)).length;
  const response = await fetch(`${e2e.simulator}/sim/inbound`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ phone_number_id: org.channel.phone_number_id, from, ...message }),
  });
  expect(response.ok).toBe(true);
  const sent = await until(async () => {
    const all = await sentTo(from);
    return all.length > before ? all : undefined;
  }, `an answer to ${from}`);
  return textOf(sent[before]!);
}

async function contactByPhone(client: ApiClient, phone: string) {
  const answer = await client.get('getSingleContact', { phone });
  expect(answer.status).toBe(200);
  return answer.body.contact as {
    id: number;
    custom: Record<string, string>;
    groups: { name: string }[];
  };
}

test('when a customer taps through a three-step flow, then each button reply gets the next step and the flow’s changes reach the contact', async () => {
  const org = await e2e.createOrganization('Flow Co', 'standard');
  const client = e2e.api(org.token);
  expect((await client.post('addFlow', orderFlow() as Record<string, unknown>)).status).toBe(201);
  const phone = '393471250001';

  expect(await customerSays(org, phone, { text: 'Order!' })).toBe(
    'Hi Test User! Do you want to order a shirt?',
  );
  expect(await customerSays(org, phone, { button_reply: { id: 'yes', title: 'Yes please' } })).toBe(
    'Which size?',
  );
  expect(await customerSays(org, phone, { button_reply: { id: 'size_m', title: 'Medium' } })).toBe(
    'Size Medium, Test User. Shall we ship it?',
  );
  expect(await customerSays(org, phone, { button_reply: { id: 'ship', title: 'Ship it' } })).toBe(
    'Thanks Test User, your Medium shirt is on its way',
  );

  const contact = await contactByPhone(client, phone);
  expect(contact.custom.size).toBe('Medium');
  expect(contact.groups.map((group) => group.name)).toContain('Ordered');
  // One answer per message: nothing was sent twice.
  expect(await sentTo(phone)).toHaveLength(4);
});

test('when the AI bot is on for a contact, then each message is answered from the endpoint with the conversation so far', async () => {
  const org = await e2e.createOrganization('Bot Co', 'standard');
  const client = e2e.api(org.token);
  const saved = await client.post('updateAIBotSettings', {
    endpoint: chat.baseUrl,
    model: 'tiny-chat',
    system_prompt: 'You answer for Bot Co.',
  });
  expect(saved.status).toBe(200);
  const phone = '393471250002';
  await client.post('makeContact', { name: 'Lia', phone });
  const { id } = await contactByPhone(client, phone);
  expect((await client.post('updateAIBot', { id, enabled: true })).status).toBe(200);

  expect(await customerSays(org, phone, { text: 'Do you sell red bikes?' })).toBe(
    'Echo: Do you sell red bikes?',
  );
  expect(await customerSays(org, phone, { text: 'And blue ones?' })).toBe('Echo: And blue ones?');

  const asked = chat.requests.filter(
    (request) => request.body?.messages[0]?.content === 'You answer for Bot Co.',
  );
  expect(asked).toHaveLength(2);
  expect(asked[1]!.body!.messages).toEqual([
    { role: 'system', content: 'You answer for Bot Co.' },
    { role: 'user', content: 'Do you sell red bikes?' },
    { role: 'assistant', content: 'Echo: Do you sell red bikes?' },
    { role: 'user', content: 'And blue ones?' },
  ]);
});
