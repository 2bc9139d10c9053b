import { z } from 'zod';
import { secretKeysSchema } from './secret-box';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads process.env once through a zod schema; an invalid config stops the process before it listens. */
export function loadConfig<S extends z.ZodType<object>>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): Readonly<z.infer<S>> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) => `${issue.path.join('.')}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  return Object.freeze(result.data);
}

export const portSchema = (defaultPort: number) =>
  z.coerce.number().int().min(0).max(65535).default(defaultPort);

export const booleanFlag = (defaultValue: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(defaultValue ? 'true' : 'false')
    .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** A variable that was replaced: setting it stops the service, naming its replacement. */
const replacedBy = (replacement: string) =>
  z.undefined({ message: `replaced by ${replacement}` }).optional();

/** A MongoDB connection string, whose host part may list several `host:port` (WHATWG URLs may not). */
export function isMongoUrl(value: string): boolean {
  const match = /^(mongodb(?:\+srv)?:\/\/)(?:[^@/]*@)?([^/?]+)(.*)$/.exec(value);
  if (!match) return false;
  const [, scheme, hosts, rest] = match;
  return hosts!.split(',').every((host) => {
    try {
      new URL(`${scheme}${host}${rest}`);
      return host !== '';
    } catch {
      return false;
    }
  });
}

/** The URLs of a comma-separated `AMQP_URL`; undefined when one is not an amqp(s) URL. */
export function parseBrokerUrls(value: string): string[] | undefined {
  const urls = value
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  const valid = (url: string) => {
    try {
      return ['amqp:', 'amqps:'].includes(new URL(url).protocol);
    } catch {
      return false;
    }
  };
  return urls.length > 0 && urls.every(valid) ? urls : undefined;
}

/** The variables every service reads; a service extends this with its own. */
export const baseConfigShape = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HOST: z.string().default('127.0.0.1'),
  /** A replica set names its members, comma-separated: `mongodb://h1:27017,h2:27017/?replicaSet=…`. */
  MONGODB_URL: z
    .string()
    .default('mongodb://127.0.0.1:27017')
    .refine(isMongoUrl, { message: 'must be a mongodb:// or mongodb+srv:// connection string' }),
  /** Prepended to each service's database name; lets tests and parallel stacks share one server. */
  MONGODB_DB_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_]*$/)
    .default(''),
  /**
   * RabbitMQ: one URL, or the nodes of a cluster as a comma-separated list of URLs; the broker
   * client connects to one and moves to the next when it is lost.
   */
  AMQP_URL: z
    .string()
    .default('amqp://127.0.0.1:5672')
    .refine((value) => parseBrokerUrls(value) !== undefined, {
      message: 'must be amqp:// or amqps:// URLs, separated by commas',
    }),
  INTERNAL_API_SECRET: z.string().min(16, 'must be at least 16 characters'),
  /** Keys that seal credentials at rest, `kid:base64[,…]`, the first current (see SecretBox). */
  SECRET_ENCRYPTION_KEYS: secretKeysSchema,
  /** How often what is still sealed with an older key is re-sealed (besides at start). */
  SECRET_RESEAL_INTERVAL_MS: z.coerce.number().int().positive().default(3_600_000),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  HTTP_BODY_LIMIT: z.string().default('1mb'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /**
   * Local development only: customer URLs (webhooks, the AI bot's endpoint, template media) may
   * be http:// and point to private, loopback and link-local addresses.
   */
  ALLOW_PRIVATE_URLS: booleanFlag(false),
  /** Benchmarks: count the database commands each service sends, on its `/metrics`. */
  DB_COMMAND_STATS: booleanFlag(false),
  WEBHOOK_ALLOW_PRIVATE_URLS: replacedBy('ALLOW_PRIVATE_URLS'),
  AI_BOT_ALLOW_PRIVATE_URLS: replacedBy('ALLOW_PRIVATE_URLS'),
  MEDIA_ALLOW_PRIVATE_URLS: replacedBy('ALLOW_PRIVATE_URLS'),
};

export const baseConfigSchema = z.object(baseConfigShape);
export type BaseConfig = z.infer<typeof baseConfigSchema>;
