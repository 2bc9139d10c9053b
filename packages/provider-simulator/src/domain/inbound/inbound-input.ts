import { z } from 'zod';

export const INBOUND_TYPES = [
  'text',
  'image',
  'document',
  'video',
  'audio',
  'sticker',
  'interactive',
  'button',
  'reaction',
  'location',
  'contacts',
  'unsupported',
  'system',
] as const;
export type InboundType = (typeof INBOUND_TYPES)[number];

const media = z
  .object({
    caption: z.string().optional(),
    mime_type: z.string().optional(),
    filename: z.string().optional(),
    voice: z.boolean().optional(),
    animated: z.boolean().optional(),
    /** The file's bytes, base64; simulated bytes when absent. Never put in the webhook. */
    data_base64: z.string().optional(),
    /** Simulated bytes of this length (for size limits), when `data_base64` is absent. */
    size_bytes: z
      .number()
      .int()
      .min(1)
      .max(110 * 1024 * 1024)
      .optional(),
  })
  .loose();
const coordinate = z.union([z.number(), z.string()]);
const anyObject = z.record(z.string(), z.unknown());

/**
 * `POST /sim/inbound`: an end user's message to a business number. `type` may be left out when
 * one type key is given; shorthands: `text: "hi"`, `button_reply: {id,title}`,
 * `list_reply: {id,title,description}`, `image: {}` (media get a stored file and a URL).
 */
export const InboundInputSchema = z.object({
  phone_number_id: z.string().min(1),
  from: z.string().regex(/^\+?\d{7,15}$/, 'must be a phone number (7 to 15 digits)'),
  profile_name: z.string().min(1).default('Test User'),
  type: z.enum(INBOUND_TYPES).optional(),
  id: z.string().startsWith('wamid.').optional(),
  timestamp: z.union([z.string().regex(/^\d+$/), z.number().int()]).optional(),
  text: z.union([z.string(), z.object({ body: z.string() })]).optional(),
  image: media.optional(),
  video: media.optional(),
  audio: media.optional(),
  sticker: media.optional(),
  document: media.optional(),
  interactive: anyObject.optional(),
  button_reply: z.object({ id: z.string(), title: z.string() }).optional(),
  list_reply: z
    .object({ id: z.string(), title: z.string(), description: z.string().optional() })
    .optional(),
  button: z.object({ payload: z.string(), text: z.string() }).optional(),
  reaction: z
    .object({ message_id: z.string().optional(), emoji: z.string().optional() })
    .optional(),
  location: z
    .object({
      latitude: coordinate,
      longitude: coordinate,
      name: z.string().optional(),
      address: z.string().optional(),
      url: z.string().optional(),
    })
    .optional(),
  contacts: z.array(anyObject).min(1).optional(),
  unsupported: z.object({ type: z.string().optional() }).optional(),
  system: anyObject.optional(),
  context: anyObject.optional(),
  referral: anyObject.optional(),
});
export type InboundInput = z.infer<typeof InboundInputSchema>;

/** The explicit `type`, else the first type key present (`button_reply`/`list_reply` mean interactive). */
export function inferInboundType(input: InboundInput): InboundType | undefined {
  if (input.type) return input.type;
  if (input.button_reply || input.list_reply) return 'interactive';
  return INBOUND_TYPES.find((type) => input[type] !== undefined);
}
