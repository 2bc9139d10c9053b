import { z } from 'zod';
import { baseConfigShape, loadConfig, portSchema } from '@switchboard/service-kit';

const serviceUrl = (port: number) => z.string().url().default(`http://127.0.0.1:${port}`);

export const gatewayConfigSchema = z.object({
  ...baseConfigShape,
  PORT: portSchema(8080),
  ADMIN_API_TOKEN: z.string().min(16, 'must be at least 16 characters'),
  MESSAGING_URL: serviceUrl(8081),
  CONTACTS_URL: serviceUrl(8082),
  CAMPAIGNS_URL: serviceUrl(8083),
  WEBHOOKS_URL: serviceUrl(8084),
  INBOUND_URL: serviceUrl(8085),
  /** How long the gateway waits for an owning service before answering 503. */
  /**
   * Longer than an owner's slowest answer: a send may retry the provider for up to 8 s and each
   * call may take 10 s, so a shorter wait would answer 503 for a message that is then sent.
   */
  PROXY_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** How long a verified token is trusted without a database read; bounds how late a revocation bites. */
  TOKEN_CACHE_TTL_MS: z.coerce.number().int().min(0).default(30_000),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const loadGatewayConfig = (env = process.env) => loadConfig(gatewayConfigSchema, env);
