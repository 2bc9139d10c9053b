import { z } from 'zod';
import { baseConfigShape, loadConfig, portSchema } from '@switchboard/service-kit';

export const contactsConfigSchema = z.object({
  ...baseConfigShape,
  PORT: portSchema(8082),
});

export type ContactsConfig = z.infer<typeof contactsConfigSchema>;

export const loadContactsConfig = (env = process.env) => loadConfig(contactsConfigSchema, env);
