import { z } from 'zod';
import { baseConfigShape, loadConfig, portSchema } from '@switchboard/service-kit';

export const messagingConfigSchema = z.object({
  ...baseConfigShape,
  PORT: portSchema(8081),
});

export type MessagingConfig = z.infer<typeof messagingConfigSchema>;

export const loadMessagingConfig = (env = process.env) => loadConfig(messagingConfigSchema, env);
