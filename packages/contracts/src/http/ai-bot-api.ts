import { z } from 'zod';
import { HTTP_URL, HTTPS_URL_PATTERN } from './url-pattern';
import { successResponse } from '../envelope';
import { defineOperation } from './operation';

// The AI bot: per organization an OpenAI-compatible chat-completions endpoint
// that answers an inbound message when nothing else did and the contact's `updateAIBot` flag is
// on. The settings are campaigns' operations; the per-contact flag stays with contacts.

/** WhatsApp's limit on a text message body: an answer is cut to it. */
export const AI_BOT_ANSWER_MAX_CHARS = 4096;

// --- The OpenAI chat-completions wire format, the subset the bot uses. ---

export const CHAT_ROLES = ['system', 'user', 'assistant'] as const;

export const ChatMessageSchema = z.object({
  role: z.enum(CHAT_ROLES),
  content: z.string(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** `POST <endpoint>/chat/completions`: what the bot sends (it never streams). */
export const ChatCompletionRequestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(ChatMessageSchema).min(1),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

/** The answer: the bot reads `choices[0].message.content`; other fields are ignored. */
export const ChatCompletionResponseSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          role: z.string().optional(),
          content: z.string().nullable(),
        }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
});
export type ChatCompletionResponse = z.infer<typeof ChatCompletionResponseSchema>;

// --- Settings operations. ---

/** What the bot appends to the configured base URL. */
export const CHAT_COMPLETIONS_PATH = '/chat/completions';

/**
 * The endpoint is a base URL as OpenAI-compatible SDKs take it (`https://api.openai.com/v1`); a
 * URL given with `/chat/completions` at its end is stored without it. Whether http:// and
 * private addresses are allowed is the campaigns service's configuration.
 */
const EndpointSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048)
  // Said before the shape, which refuses it too: credentials would end up in logs and traces.
  .refine((url) => !/^[a-z]+:\/\/[^/?#]*@/i.test(url), {
    error: 'must not carry a user name or password',
    abort: true,
  })
  .regex(HTTP_URL, { error: 'must be an http(s) URL' })
  // Plain http is for local servers only (ALLOW_PRIVATE_URLS): the document says https.
  .meta({ pattern: HTTPS_URL_PATTERN })
  .transform((url) => {
    const trimmed = url.replace(/\/+$/, '');
    return trimmed.endsWith(CHAT_COMPLETIONS_PATH)
      ? trimmed.slice(0, -CHAT_COMPLETIONS_PATH.length)
      : trimmed;
  });

export const UpdateAIBotSettingsRequestSchema = z.object({
  endpoint: EndpointSchema.optional(),
  model: z.string().trim().min(1).max(200).optional(),
  system_prompt: z.string().max(20_000).optional(),
  /** Write-only: never answered back. `null` removes it (a local server that needs no key). */
  api_key: z.string().trim().min(1).max(1_000).nullable().optional(),
  /** The organization's switch; each contact is still switched on with `updateAIBot`. */
  enabled: z.boolean().optional(),
});
export type UpdateAIBotSettingsRequest = z.infer<typeof UpdateAIBotSettingsRequestSchema>;

export const AIBotSettingsSchema = z.object({
  endpoint: z.string().nullable(),
  model: z.string().nullable(),
  system_prompt: z.string(),
  enabled: z.boolean(),
  has_key: z.boolean(),
  /** The key's last four characters (null without a key or for a key too short to show any). */
  api_key_last_four: z.string().nullable(),
  updated_at: z.iso.datetime({ offset: true }).nullable(),
});
export type AIBotSettings = z.infer<typeof AIBotSettingsSchema>;

export const AIBotSettingsResponseSchema = successResponse({ settings: AIBotSettingsSchema });
export type AIBotSettingsResponse = z.infer<typeof AIBotSettingsResponseSchema>;

const AI_BOT_OPERATION = { auth: 'token', tags: ['ai bot'] } as const;

export const AI_BOT_OPERATIONS = [
  defineOperation({
    owner: 'campaigns',
    method: 'get',
    ...AI_BOT_OPERATION,
    path: '/api/svc/getAIBotSettings',
    operationId: 'getAIBotSettings',
    summary: "The organization's AI bot settings (the API key is never returned)",
    responses: { 200: AIBotSettingsResponseSchema },
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'post',
    ...AI_BOT_OPERATION,
    path: '/api/svc/updateAIBotSettings',
    operationId: 'updateAIBotSettings',
    summary: 'Set the AI bot’s endpoint, model, system prompt, API key or switch (partial update)',
    description:
      'The endpoint is an OpenAI-compatible base URL (`https://api.openai.com/v1`); the bot posts ' +
      'to `<endpoint>/chat/completions`. Enabled settings need an endpoint and a model (422 ' +
      'naming the field). The key is stored encrypted and never answered back. An answer of the ' +
      'model containing `[handover]` hands the contact over to a person: the marker is removed ' +
      'from the text, automated answers stop for the contact and its conversation becomes ' +
      '`needs_human` (say in the system prompt when the model should write it).',
    request: { body: UpdateAIBotSettingsRequestSchema },
    responses: { 200: AIBotSettingsResponseSchema },
  }),
] as const;
