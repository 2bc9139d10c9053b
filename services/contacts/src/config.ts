import { z } from 'zod';
import { baseConfigShape, booleanFlag, loadConfig, portSchema } from '@switchboard/service-kit';

export const contactsConfigSchema = z.object({
  ...baseConfigShape,
  PORT: portSchema(8082),
  /** The published event catalog: `contact_created` and `contact_updated` are reserved, published only when this is on. */
  EMIT_RESERVED_EVENTS: booleanFlag(false),
  /** How often pending events left behind (broker down, process died) are looked for and published. */
  EVENT_RELAY_SWEEP_MS: z.coerce.number().int().min(50).default(30_000),
  /** How often quota counters are checked against the contacts stored (a crash can leave one off). */
  QUOTA_RECONCILE_EVERY_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(60 * 60 * 1000),
  /** A counter changed more recently than this may belong to a write in progress: left alone. */
  QUOTA_RECONCILE_SETTLE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(10 * 60 * 1000),
});

export type ContactsConfig = z.infer<typeof contactsConfigSchema>;

export const loadContactsConfig = (env = process.env) => loadConfig(contactsConfigSchema, env);
