import { ChatCompletionRequestSchema } from '@switchboard/contracts';
import {
  startCampaignsSystem,
  uniquePhone,
  type CampaignsSystem,
  type Organization,
} from '../support/campaigns-harness';
import type { AiBot } from '../../src/assemble-ai-bot';
import {
  aiBotOf,
  contactWrites,
  switchAiBotForContact,
  turnOf,
  type LogLine,
} from '../support/ai-bot-harness';
import {
  startChatCompletionsServer,
  type ChatCompletionsServer,
} from '../support/chat-completions-server';

jest.setTimeout(90_000);

const HISTORY = 3;
const TIMEOUT_MS = 800;
const BREAKER_VOLUME = 3;

let system: CampaignsSystem;
let chat: ChatCompletionsServer;
let bot: AiBot;
let logs: LogLine[];

beforeAll(async () => {
  chat = await startChatCompletionsServer();
  system = await startCampaignsSystem('aibotresp', {
    campaignsEnv: {
      ALLOW_PRIVATE_URLS: 'true',
      AI_BOT_HISTORY_MESSAGES: String(HISTORY),
      AI_BOT_TIMEOUT_MS: String(TIMEOUT_MS),
      AI_BOT_BREAKER_VOLUME: String(BREAKER_VOLUME),
      AI_BOT_BREAKER_ERROR_PERCENT: '50',
      AI_BOT_BREAKER_RESET_MS: '60000',
    },
    // The responder is called here directly, turn by turn; the running pipeline must not also
    // ask the endpoint about every message these tests write (test/e2e/bots.test.ts does that).
    campaignsOptions: { responders: { aiBot: async () => null } },
  });
  ({ bot, logs } = await aiBotOf(system));
});

afterAll(async () => {
  await bot?.shutdown();
  await system?.stop();
  await chat?.stop();
});

afterEach(() => chat.setMode({ kind: 'echo' }));

const KEY = 'sk-test-abcdefghijklmnop1234';

/** An organization whose bot answers from the local server, and one contact switched on. */
async function organizationWithBot(name: string, settings: Record<string, unknown> = {}) {
  const org = await system.newOrganization('standard', name);
  const saved = await org.api.post('updateAIBotSettings', {
    endpoint: chat.baseUrl,
    model: 'tiny-chat',
    system_prompt: `You answer for ${name}.`,
    api_key: KEY,
    ...settings,
  });
  expect(saved.status).toBe(200);
  const phone = uniquePhone();
  const first = contactWrites(system, org, phone, 'Hello there');
  switchAiBotForContact(system, first.contact_id, true);
  return { org, phone, first };
}

/** The calls made for one organization: its system prompt names it. */
const requestsOf = (org: Organization) =>
  chat.requests.filter(
    (request) => request.body?.messages[0]?.content === `You answer for ${org.name}.`,
  );
const noAnswerLogs = (org: Organization) =>
  logs.filter((line) => line.msg === 'AI bot gave no answer' && line.company_id === org.company_id);

describe('the AI bot answers with the conversation', () => {
  test('when the contact writes, then the last N messages go to the endpoint oldest first after the system prompt, and its answer is the reply', async () => {
    const { org, phone } = await organizationWithBot('Rossi Bikes');
    const contact = system.contacts.contacts.find((known) => known.phone === phone)!;
    system.messaging.record(org.company_id, contact, 'outbound', 'Hi! How can we help?');
    contactWrites(system, org, phone, 'Do you have red bikes?');
    const current = contactWrites(system, org, phone, 'And do you ship to Rome?');
    // Written after the message being answered: not part of its context.
    contactWrites(system, org, phone, 'Also, are you open on Sunday?');

    const answer = await bot.respond(turnOf(system, org, current));

    expect(answer).toEqual({
      source: 'ai_bot',
      content: { type: 'text', message: 'Echo: And do you ship to Rome?' },
    });
    const calls = requestsOf(org);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      path: '/v1/chat/completions',
      authorization: `Bearer ${KEY}`,
      invalid: undefined,
    });
    // HISTORY = 3: the greeting ("Hello there") is older than the last three messages.
    expect(calls[0]!.body).toEqual({
      model: 'tiny-chat',
      messages: [
        { role: 'system', content: 'You answer for Rossi Bikes.' },
        { role: 'assistant', content: 'Hi! How can we help?' },
        { role: 'user', content: 'Do you have red bikes?' },
        { role: 'user', content: 'And do you ship to Rome?' },
      ],
    });
  });

  test('when the contact writes for the first time, then the message is sent once, with no empty system prompt', async () => {
    const org = await system.newOrganization('standard', 'No Prompt Co');
    await org.api.post('updateAIBotSettings', { endpoint: chat.baseUrl, model: 'tiny-chat' });
    const phone = uniquePhone();
    const first = contactWrites(system, org, phone, 'Anyone there?');
    switchAiBotForContact(system, first.contact_id, true);
    const before = chat.requests.length;

    const answer = await bot.respond(turnOf(system, org, first));

    expect(answer?.content).toEqual({ type: 'text', message: 'Echo: Anyone there?' });
    const call = chat.requests[before]!;
    expect(call.authorization).toBeUndefined();
    expect(call.body!.messages).toEqual([{ role: 'user', content: 'Anyone there?' }]);
  });

  test('when the endpoint answers more than WhatsApp allows, then the reply is trimmed and cut to 4096 characters', async () => {
    const { org, first } = await organizationWithBot('Talkative Co');
    chat.setMode({ kind: 'fixed', content: `  ${'word '.repeat(1200)}` });
    const answer = await bot.respond(turnOf(system, org, first));
    const text = (answer?.content as { message: string }).message;
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text.length).toBeGreaterThan(4090);
    expect(text).toMatch(/^word /);
    expect(text).toBe(text.trim());
  });
});

describe('when the AI bot stays silent', () => {
  test('when the contact is not switched on, then there is no answer and no call', async () => {
    const { org, first } = await organizationWithBot('Flag Off Co');
    switchAiBotForContact(system, first.contact_id, false);
    const turn = turnOf(system, org, first);
    expect(turn.contact.ai_bot_enabled).toBe(false);
    expect(await bot.respond(turn)).toBeNull();
    expect(requestsOf(org)).toHaveLength(0);
  });

  test('when the message has no text, then there is no answer and no call', async () => {
    const { org, first } = await organizationWithBot('No Text Co');
    const turn = turnOf(system, org, first);
    expect(
      await bot.respond({ ...turn, message: { ...turn.message, type: 'sticker', text: '' } }),
    ).toBeNull();
    expect(requestsOf(org)).toHaveLength(0);
  });

  test('when the organization switched the bot off, then there is no answer and no call', async () => {
    const { org, first } = await organizationWithBot('Settings Off Co');
    await org.api.post('updateAIBotSettings', { enabled: false });
    expect(await bot.respond(turnOf(system, org, first))).toBeNull();
    expect(requestsOf(org)).toHaveLength(0);
  });

  test('when the organization has no settings, then another organization’s bot is never used', async () => {
    await organizationWithBot('Configured Co');
    const other = await system.newOrganization('standard', 'Unconfigured Co');
    const received = contactWrites(system, other, uniquePhone(), 'Hello?');
    switchAiBotForContact(system, received.contact_id, true);
    const before = chat.requests.length;
    const turn = turnOf(system, other, received);
    expect(turn.contact.ai_bot_enabled).toBe(true);
    expect(await bot.respond(turn)).toBeNull();
    expect(chat.requests).toHaveLength(before);
  });

  test.each([
    ['answers 500', { kind: 'status', status: 500 } as const, 'status'],
    ['answers 401', { kind: 'status', status: 401 } as const, 'status'],
    ['answers something that is not a chat completion', { kind: 'garbage' } as const, 'unexpected'],
    ['answers an empty message', { kind: 'fixed', content: '   ' } as const, 'unexpected'],
    ['does not answer in time', { kind: 'hang' } as const, 'timeout'],
  ])(
    'when the endpoint %s, then there is no answer and the failure is logged',
    async (what, mode, reason) => {
      const { org, first } = await organizationWithBot(`Endpoint that ${what}`);
      chat.setMode(mode);
      const started = Date.now();
      expect(await bot.respond(turnOf(system, org, first))).toBeNull();
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 3_000);
      expect(requestsOf(org)).toHaveLength(1);
      expect(noAnswerLogs(org)).toEqual([
        expect.objectContaining({ reason, contact_id: first.contact_id }),
      ]);
      // The key never reaches the log.
      expect(JSON.stringify(logs)).not.toContain(KEY);
    },
  );
});

describe('the breaker of an organization’s endpoint', () => {
  test('when the endpoint keeps failing, then the breaker opens and no call is made while it is open; other organizations still get answers', async () => {
    const { org, first } = await organizationWithBot('Broken Endpoint Co');
    const healthy = await organizationWithBot('Healthy Co');
    chat.setMode({ kind: 'status', status: 503 });
    const turn = turnOf(system, org, first);
    for (let i = 0; i < BREAKER_VOLUME; i++) expect(await bot.respond(turn)).toBeNull();
    expect(requestsOf(org)).toHaveLength(BREAKER_VOLUME);

    chat.setMode({ kind: 'echo' });
    expect(await bot.respond(turn)).toBeNull();
    expect(requestsOf(org)).toHaveLength(BREAKER_VOLUME);
    expect(noAnswerLogs(org).at(-1)).toMatchObject({ reason: 'circuit_open' });

    const answer = await bot.respond(turnOf(system, healthy.org, healthy.first));
    expect(answer?.content).toEqual({ type: 'text', message: 'Echo: Hello there' });
  });

  test('when the endpoint keeps refusing with 4xx, then the breaker stays closed and every message is asked', async () => {
    const { org, first } = await organizationWithBot('Wrong Key Co');
    chat.setMode({ kind: 'status', status: 401 });
    const turn = turnOf(system, org, first);
    for (let i = 0; i < BREAKER_VOLUME + 2; i++) expect(await bot.respond(turn)).toBeNull();
    expect(requestsOf(org)).toHaveLength(BREAKER_VOLUME + 2);
    expect(noAnswerLogs(org).map((line) => line.reason)).not.toContain('circuit_open');
  });
});

describe('contract: what the bot sends and reads', () => {
  test('when the bot calls the endpoint, then every request it made matched ChatCompletionRequestSchema', () => {
    expect(chat.requests.length).toBeGreaterThan(0);
    for (const request of chat.requests) {
      expect(request.invalid).toBeUndefined();
      expect(ChatCompletionRequestSchema.safeParse(request.body).success).toBe(true);
    }
  });
});
