import { z } from 'zod';
import { baseConfigShape, booleanFlag, loadConfig, portSchema } from '@switchboard/service-kit';

export const contactsConfigSchema = z.object({
  ...baseConfigShape,
  PORT: portSchema(8082),
  /** Spec §6.1: `contact_created` and `contact_updated` are reserved, published only when this is on. */
  EMIT_RESERVED_EVENTS: booleanFlag(false),
  /** How often pending events left behind (broker down, process died) are looked for and published. */
  EVENT_RELAY_SWEEP_MS: z.coerce.number().int().min(50).default(30_000),
});

export type ContactsConfig = z.infer<typeof contactsConfigSchema>;

export const loadContactsConfig = (env = process.env) => loadConfig(contactsConfigSchema, env);
