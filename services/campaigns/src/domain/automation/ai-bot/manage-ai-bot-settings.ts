import type { AIBotSettings, UpdateAIBotSettingsRequest } from '@switchboard/contracts';
import {
  AppError,
  urlPolicyViolation,
  type SecretBox,
  type UrlPolicy,
} from '@switchboard/service-kit';
import type {
  AiBotSettingsStore,
  StoredAiBotSettings,
} from '../../../data-access/automation/ai-bot-settings-store';

export interface AiBotSettingsDeps {
  settings: AiBotSettingsStore;
  secrets: SecretBox;
  urlPolicy: UrlPolicy;
}

/** Shorter keys show none of their characters: four of eight would give half of it away. */
const MIN_KEY_LENGTH_TO_HINT = 16;

/** What an organization without settings reads: nothing configured, switched off. */
const UNCONFIGURED: AIBotSettings = {
  endpoint: null,
  model: null,
  system_prompt: '',
  enabled: false,
  has_key: false,
  api_key_last_four: null,
  updated_at: null,
};

/** The settings as the API shows them: the key only as "there is one" and its last four. */
export function presentAiBotSettings(stored: StoredAiBotSettings | null): AIBotSettings {
  if (!stored) return UNCONFIGURED;
  return {
    endpoint: stored.endpoint,
    model: stored.model,
    system_prompt: stored.system_prompt,
    enabled: stored.enabled,
    has_key: stored.api_key_sealed !== null,
    api_key_last_four: stored.api_key_last_four,
    updated_at: stored.updated_at.toISOString(),
  };
}

export async function getAiBotSettings(
  deps: AiBotSettingsDeps,
  company_id: number,
): Promise<AIBotSettings> {
  return presentAiBotSettings(await deps.settings.find(company_id));
}

/**
 * A partial update. Settings made for the first time are enabled unless `enabled: false` is
 * given (configuring the bot means wanting it; each contact is still switched on by itself);
 * enabled settings need an endpoint and a model. The endpoint must pass the URL policy.
 */
export async function updateAiBotSettings(
  deps: AiBotSettingsDeps,
  company_id: number,
  request: UpdateAIBotSettingsRequest,
): Promise<AIBotSettings> {
  const current = await deps.settings.find(company_id);
  const endpoint = request.endpoint ?? current?.endpoint ?? null;
  const model = request.model ?? current?.model ?? null;
  const enabled = request.enabled ?? current?.enabled ?? true;
  if (enabled && endpoint === null) {
    throw new AppError('validation_failed', 'endpoint: required while the AI bot is enabled');
  }
  if (enabled && model === null) {
    throw new AppError('validation_failed', 'model: required while the AI bot is enabled');
  }
  if (request.endpoint !== undefined) {
    const violation = await urlPolicyViolation(request.endpoint, deps.urlPolicy);
    if (violation) throw new AppError('validation_failed', `endpoint: ${violation}`);
  }

  const key =
    request.api_key === undefined
      ? {}
      : request.api_key === null
        ? { api_key_sealed: null, api_key_last_four: null }
        : {
            api_key_sealed: deps.secrets.seal(request.api_key),
            api_key_last_four:
              request.api_key.length >= MIN_KEY_LENGTH_TO_HINT ? request.api_key.slice(-4) : null,
          };
  const saved = await deps.settings.update(company_id, {
    endpoint,
    model,
    enabled,
    ...(request.system_prompt === undefined ? {} : { system_prompt: request.system_prompt }),
    ...key,
    updated_at: new Date(),
  });
  return presentAiBotSettings(saved);
}
