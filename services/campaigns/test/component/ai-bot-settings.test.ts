import { randomBytes } from 'node:crypto';
import { AIBotSettingsResponseSchema } from '@switchboard/contracts';
import { singleKeySecretBox } from '@switchboard/service-kit';
import { startCampaignsSystem, type CampaignsSystem } from '../support/campaigns-harness';
import { createAiBotSettingsStore } from '../../src/data-access/automation/ai-bot-settings-store';
import { updateAiBotSettings } from '../../src/domain/automation/ai-bot/manage-ai-bot-settings';

jest.setTimeout(90_000);

let system: CampaignsSystem;

beforeAll(async () => {
  system = await startCampaignsSystem('aibotset', {
    campaignsEnv: { ALLOW_PRIVATE_URLS: 'true' },
  });
});

afterAll(async () => {
  await system?.stop();
});

const KEY = 'sk-test-0123456789abcdefghijWXYZ';
const SETTINGS = {
  endpoint: 'https://llm.example.com/v1',
  model: 'tiny-chat',
  system_prompt: 'You answer for Rossi Bikes. Be brief.',
  api_key: KEY,
};

describe('AI bot settings (getAIBotSettings, updateAIBotSettings)', () => {
  test('when an organization has configured nothing, then its settings read as unconfigured and switched off', async () => {
    const org = await system.newOrganization('standard', 'Blank Co');
    const answer = await org.api.get('getAIBotSettings');
    expect(answer.status).toBe(200);
    expect(AIBotSettingsResponseSchema.parse(answer.body).settings).toEqual({
      endpoint: null,
      model: null,
      system_prompt: '',
      enabled: false,
      has_key: false,
      api_key_last_four: null,
      updated_at: null,
    });
  });

  test('when settings are saved with a key, then they read back enabled with only the last four of the key, and the key is stored sealed', async () => {
    const org = await system.newOrganization('standard', 'Keyed Co');
    const saved = await org.api.post('updateAIBotSettings', SETTINGS);
    expect(saved.status).toBe(200);
    const expected = {
      endpoint: 'https://llm.example.com/v1',
      model: 'tiny-chat',
      system_prompt: 'You answer for Rossi Bikes. Be brief.',
      enabled: true,
      has_key: true,
      api_key_last_four: 'WXYZ',
      updated_at: expect.any(String),
    };
    expect(AIBotSettingsResponseSchema.parse(saved.body).settings).toEqual(expected);
    const read = await org.api.get('getAIBotSettings');
    expect(AIBotSettingsResponseSchema.parse(read.body).settings).toEqual(expected);
    for (const answer of [saved, read]) {
      expect(JSON.stringify(answer.body)).not.toContain('0123456789abcdef');
    }

    const stored = await system
      .campaigns!.db.collection('ai_bot_settings')
      .findOne({ _id: String(org.company_id) as never });
    expect(stored).toMatchObject({ company_id: org.company_id, api_key_last_four: 'WXYZ' });
    expect(JSON.stringify(stored)).not.toContain('0123456789abcdef');
    expect(stored!.api_key_sealed).toMatch(/^v2\./);
  });

  test('when only some fields are updated, then the others stay; a null key removes the key; an endpoint given with /chat/completions is kept as its base URL', async () => {
    const org = await system.newOrganization('standard', 'Partial Co');
    await org.api.post('updateAIBotSettings', SETTINGS);

    const prompt = await org.api.post('updateAIBotSettings', { system_prompt: 'Be cheerful.' });
    expect(AIBotSettingsResponseSchema.parse(prompt.body).settings).toMatchObject({
      endpoint: SETTINGS.endpoint,
      model: SETTINGS.model,
      system_prompt: 'Be cheerful.',
      enabled: true,
      has_key: true,
    });

    const off = await org.api.post('updateAIBotSettings', {
      enabled: false,
      api_key: null,
      endpoint: 'https://other.example.com/openai/v1/chat/completions/',
    });
    expect(AIBotSettingsResponseSchema.parse(off.body).settings).toMatchObject({
      endpoint: 'https://other.example.com/openai/v1',
      model: SETTINGS.model,
      system_prompt: 'Be cheerful.',
      enabled: false,
      has_key: false,
      api_key_last_four: null,
    });
  });

  test('when a short key is saved, then none of its characters are shown', async () => {
    const org = await system.newOrganization('standard', 'Short Key Co');
    const saved = await org.api.post('updateAIBotSettings', { ...SETTINGS, api_key: 'abc12345' });
    expect(AIBotSettingsResponseSchema.parse(saved.body).settings).toMatchObject({
      has_key: true,
      api_key_last_four: null,
    });
    expect(JSON.stringify(saved.body)).not.toContain('abc12345');
  });

  test.each([
    ['an ftp:// endpoint', { ...SETTINGS, endpoint: 'ftp://llm.example.com/v1' }, /^endpoint: /],
    ['an endpoint that is no URL', { ...SETTINGS, endpoint: 'not a url' }, /^endpoint: /],
    ['an operator as endpoint', { ...SETTINGS, endpoint: { $gt: '' } }, /^endpoint: /],
    ['an empty model', { ...SETTINGS, model: '' }, /^model: /],
    ['an operator as model', { ...SETTINGS, model: { $gt: '' } }, /^model: /],
    ['enabled that is no boolean', { ...SETTINGS, enabled: 'maybe' }, /^enabled: /],
    [
      'a system prompt too long',
      { ...SETTINGS, system_prompt: 'x'.repeat(20_001) },
      /^system_prompt: /,
    ],
    ['a key that is no string', { ...SETTINGS, api_key: 42 }, /^api_key: /],
    [
      'an endpoint with a user name and password',
      { ...SETTINGS, endpoint: 'https://user:pw@llm.example.com/v1' },
      /^endpoint: must not carry a user name or password/,
    ],
    [
      'no endpoint, enabled',
      { model: 'tiny-chat' },
      /^endpoint: required while the AI bot is enabled/,
    ],
    [
      'no model, enabled',
      { endpoint: SETTINGS.endpoint },
      /^model: required while the AI bot is enabled/,
    ],
  ])(
    'when the settings have %s, then the answer is 422 naming the field and nothing is saved',
    async (_what, body, message) => {
      const org = await system.newOrganization('standard', 'Bad Input Co');
      const answer = await org.api.post('updateAIBotSettings', body);
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ status: 'error', code: 'validation_failed' });
      expect(answer.body.message).toMatch(message);
      const read = await org.api.get('getAIBotSettings');
      expect(AIBotSettingsResponseSchema.parse(read.body).settings.updated_at).toBeNull();
    },
  );

  test('when settings are switched off, then an endpoint and model are not required', async () => {
    const org = await system.newOrganization('standard', 'Off Co');
    const answer = await org.api.post('updateAIBotSettings', { enabled: false, api_key: KEY });
    expect(answer.status).toBe(200);
    expect(AIBotSettingsResponseSchema.parse(answer.body).settings).toMatchObject({
      enabled: false,
      endpoint: null,
      has_key: true,
    });
  });

  test('when a settings operation is called with the wrong method, then the answer is 405', async () => {
    const org = await system.newOrganization('standard', 'Method Co');
    const answer = await org.api.get('updateAIBotSettings');
    expect(answer.status).toBe(405);
  });

  test('when two organizations configure the bot, then each reads and changes only its own settings', async () => {
    const first = await system.newOrganization('standard', 'First Co');
    const second = await system.newOrganization('standard', 'Second Co');
    await first.api.post('updateAIBotSettings', SETTINGS);

    const seenBySecond = await second.api.get('getAIBotSettings');
    expect(AIBotSettingsResponseSchema.parse(seenBySecond.body).settings).toMatchObject({
      endpoint: null,
      has_key: false,
    });
    await second.api.post('updateAIBotSettings', {
      endpoint: 'https://second.example.com/v1',
      model: 'second-model',
      enabled: false,
    });
    const firstAfter = await first.api.get('getAIBotSettings');
    expect(AIBotSettingsResponseSchema.parse(firstAfter.body).settings).toMatchObject({
      endpoint: SETTINGS.endpoint,
      model: SETTINGS.model,
      enabled: true,
      has_key: true,
    });
  });

  test('when private URLs are not allowed, then an http:// or private endpoint is refused naming the endpoint', async () => {
    const deps = {
      settings: createAiBotSettingsStore(system.campaigns.db),
      secrets: singleKeySecretBox(randomBytes(32)),
      urlPolicy: { allowPrivate: false, resolve: async () => ['10.0.0.8'] },
    };
    const base = { model: 'tiny-chat', system_prompt: '' };
    await expect(
      updateAiBotSettings(deps, 990_001, { ...base, endpoint: 'http://llm.example.com/v1' }),
    ).rejects.toMatchObject({ code: 'validation_failed', message: /^endpoint: must be an https/ });
    await expect(
      updateAiBotSettings(deps, 990_001, { ...base, endpoint: 'https://127.0.0.1/v1' }),
    ).rejects.toMatchObject({ message: /^endpoint: must not point to a private/ });
    await expect(
      updateAiBotSettings(deps, 990_001, { ...base, endpoint: 'https://llm.internal/v1' }),
    ).rejects.toMatchObject({ message: /^endpoint: must not resolve to a private/ });
    expect(await deps.settings.find(990_001)).toBeNull();
  });
});
