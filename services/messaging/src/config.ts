import { z } from 'zod';
import { baseConfigShape, loadConfig, portSchema } from '@switchboard/service-kit';

export const messagingConfigSchema = z.object({
  ...baseConfigShape,
  PORT: portSchema(8081),
  /** The gateway's public address: inbound webhook URLs handed to the provider are built on it. */
  PUBLIC_BASE_URL: z.string().url().default('http://127.0.0.1:8080'),
  /** Where new channels point until an admin sets Meta's credentials (the simulator by default). */
  PROVIDER_BASE_URL: z.string().url().default('http://127.0.0.1:8090'),
  PROVIDER_API_VERSION: z
    .string()
    .regex(/^v\d{1,3}\.0$/)
    .default('v24.0'),
  /** When set, every new channel is registered with this provider simulator's control API. */
  PROVIDER_SIMULATOR_URL: z.string().url().optional(),
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
});

export type MessagingConfig = z.infer<typeof messagingConfigSchema>;

export const loadMessagingConfig = (env = process.env) => loadConfig(messagingConfigSchema, env);
