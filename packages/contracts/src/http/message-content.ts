import { z } from 'zod';
import { PositiveIntegerSchema } from './integers';
import { listInput } from './list-input';

// The message kinds beyond text, buttons and media, as `sendMessageToPhoneNumber` takes them:
// list menus, locations, contact cards and reactions, each within the limits Meta documents for
// the Cloud API, so that a request the provider would refuse is answered 422 naming the limit.

/** Meta's limits of interactive list messages. */
export const LIST_LIMITS = {
  body: 4096,
  button: 20,
  sections: 10,
  rows: 10,
  sectionTitle: 24,
  rowId: 200,
  rowTitle: 24,
  rowDescription: 72,
} as const;

/** Meta sends up to 257 contact cards in one message. */
export const MAX_CONTACT_CARDS = 257;
/** Meta names no limit for a location's name and address or a card's fields; these keep rows small. */
export const FREE_TEXT_MAX = 1024;

const required = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` });

const optional = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, { error: `must be at most ${max} characters` })
    .optional();

/** An object as JSON or, from a form field, as a JSON text. */
export function objectInput<T extends z.ZodType>(object: T) {
  return z.preprocess((value) => {
    if (typeof value !== 'string' || !value.trim().startsWith('{')) return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }, object);
}

export const ListRowSchema = z.strictObject({
  id: required(LIST_LIMITS.rowId),
  title: required(LIST_LIMITS.rowTitle),
  description: optional(LIST_LIMITS.rowDescription),
});

export const ListSectionSchema = z.strictObject({
  title: optional(LIST_LIMITS.sectionTitle).describe('Required when there are several sections.'),
  rows: z.array(ListRowSchema, { error: 'must be a list of rows' }).min(1, {
    error: 'must have at least one row',
  }),
});

export const ListMenuSchema = objectInput(
  z
    .strictObject({
      button: required(LIST_LIMITS.button).describe('The text of the button that opens the list.'),
      sections: z
        .array(ListSectionSchema, { error: 'must be a list of sections' })
        .min(1, { error: 'must have at least one section' })
        .max(LIST_LIMITS.sections, {
          error: `must be at most ${LIST_LIMITS.sections} sections`,
        }),
    })
    .superRefine((list, ctx) => {
      const rows = list.sections.flatMap((section) => section.rows);
      if (rows.length > LIST_LIMITS.rows) {
        ctx.addIssue({
          code: 'custom',
          path: ['sections'],
          message: `must have at most ${LIST_LIMITS.rows} rows in all sections together (has ${rows.length})`,
        });
      }
      const ids = new Set<string>();
      rows.forEach((row) => {
        if (ids.has(row.id)) {
          ctx.addIssue({ code: 'custom', path: ['sections'], message: 'row ids must be unique' });
        }
        ids.add(row.id);
      });
      if (list.sections.length > 1) {
        list.sections.forEach((section, index) => {
          if (!section.title?.trim()) {
            ctx.addIssue({
              code: 'custom',
              path: ['sections', index, 'title'],
              message: 'is required when there are several sections',
            });
          }
        });
      }
    }),
);
export type ListMenu = z.infer<typeof ListMenuSchema>;

const coordinate = (limit: number) =>
  z.preprocess(
    (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value),
    z
      .number({ error: 'must be a number in decimal degrees' })
      .min(-limit, { error: `must be between -${limit} and ${limit}` })
      .max(limit, { error: `must be between -${limit} and ${limit}` }),
  );

export const LocationSchema = objectInput(
  z.strictObject({
    latitude: coordinate(90),
    longitude: coordinate(180),
    name: optional(FREE_TEXT_MAX),
    address: optional(FREE_TEXT_MAX).describe('Shown under the name.'),
  }),
);
export type Location = z.infer<typeof LocationSchema>;

const field = () => optional(FREE_TEXT_MAX);
const HOME_OR_WORK = z.enum(['HOME', 'WORK'], { error: 'must be HOME or WORK' }).optional();

/** One contact card, Meta's `contacts[]` object (a vCard's fields). */
export const ContactCardSchema = z.strictObject({
  name: z.strictObject({
    formatted_name: required(FREE_TEXT_MAX),
    first_name: field(),
    last_name: field(),
    middle_name: field(),
    suffix: field(),
    prefix: field(),
  }),
  birthday: z
    .string({ error: 'must be a date as YYYY-MM-DD' })
    .regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, {
      error: 'must be a date as YYYY-MM-DD',
    })
    .optional(),
  phones: z
    .array(
      z.strictObject({
        phone: required(64),
        type: z.enum(['CELL', 'MAIN', 'IPHONE', 'HOME', 'WORK']).optional(),
        wa_id: z
          .string()
          .regex(/^\d{6,20}$/, { error: 'must be digits' })
          .optional(),
      }),
    )
    .max(20)
    .optional(),
  emails: z
    .array(
      z.strictObject({
        email: z.email({ error: 'must be an email address' }).max(320),
        type: HOME_OR_WORK,
      }),
    )
    .max(20)
    .optional(),
  addresses: z
    .array(
      z.strictObject({
        street: field(),
        city: field(),
        state: field(),
        zip: field(),
        country: field(),
        country_code: z
          .string()
          .regex(/^[A-Za-z]{2}$/, { error: 'must be a two-letter country code' })
          .optional(),
        type: HOME_OR_WORK,
      }),
    )
    .max(20)
    .optional(),
  org: z.strictObject({ company: field(), department: field(), title: field() }).optional(),
  urls: z
    .array(
      z.strictObject({
        url: z
          .string()
          .max(2000)
          .regex(/^https?:\/\/\S+$/, { error: 'must be an http(s) URL' }),
        type: HOME_OR_WORK,
      }),
    )
    .max(20)
    .optional(),
});
export type ContactCard = z.infer<typeof ContactCardSchema>;

export const ContactCardsSchema = listInput(
  z
    .array(ContactCardSchema, { error: 'must be a list of contact cards' })
    .min(1, { error: 'must have at least one contact card' })
    .max(MAX_CONTACT_CARDS, { error: `must be at most ${MAX_CONTACT_CARDS} contact cards` }),
);

// An emoji, a flag or a keycap; one grapheme, as WhatsApp shows one reaction.
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;
function isOneEmoji(text: string): boolean {
  const graphemes = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)];
  return graphemes.length === 1 && EMOJI.test(text);
}

export const ReactionSchema = objectInput(
  z.strictObject({
    message_id: PositiveIntegerSchema.describe('The message (of this contact) reacted to.'),
    emoji: z
      .string({ error: 'must be an emoji' })
      .max(32, { error: 'must be one emoji' })
      .refine((text) => text === '' || isOneEmoji(text), { error: 'must be one emoji' })
      .describe('One emoji; an empty text takes a reaction back.'),
  }),
);
export type Reaction = z.infer<typeof ReactionSchema>;
