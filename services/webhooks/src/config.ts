import { z } from 'zod';
import { baseConfigShape, loadConfig, portSchema } from '@switchboard/service-kit';

export const webhooksConfigSchema = z.object({
  ...baseConfigShape,
  PORT: portSchema(8084),
});

export type WebhooksConfig = z.infer<typeof webhooksConfigSchema>;

export const loadWebhooksConfig = (env = process.env) => loadConfig(webhooksConfigSchema, env);
