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
  /**
   * How long a verified token is trusted without a database read: a token revoked through one
   * replica is refused by every other replica within this time (the revoking one refuses it at once).
   */
  TOKEN_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  /** The public address; invitation links point at the console under it. */
  PUBLIC_BASE_URL: z.string().url().default('http://127.0.0.1:8080'),
  /** A session unused this long ends (a request at most every minute keeps it alive). */
  SESSION_IDLE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60 * 60_000),
  /** A session ends this long after sign-in however busy it is. */
  SESSION_MAX_AGE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(12 * 60 * 60_000),
  /** How long an invitation link works. */
  INVITATION_TTL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(7 * 24 * 60 * 60_000),
  /** Failed sign-ins per account per 15 minutes (burst: as many) before 429. */
  SIGN_IN_FAILURES_PER_ACCOUNT: z.coerce.number().positive().default(5),
  /** Failed sign-ins per client address per 15 minutes (burst: as many) before 429. */
  SIGN_IN_FAILURES_PER_ADDRESS: z.coerce.number().positive().default(20),
  /**
   * Gateway replicas behind the load balancer: each enforces this share of every rate limit,
   * so the deployment as a whole allows about the documented rate with no shared store.
   */
  GATEWAY_REPLICAS: z.coerce.number().int().min(1).default(1),
  /** Multiplies the plans' API request rates (PLAN_REQUEST_RATES); load tests raise it. */
  API_RATE_SCALE: z.coerce.number().positive().default(1),
  /** Admin API requests per second per client address (burst: ten times as many). */
  ADMIN_RATE_PER_SECOND: z.coerce.number().positive().default(5),
  /** Failed token attempts per minute per client address (burst: as many) before 429. */
  FAILED_AUTH_PER_MINUTE: z.coerce.number().positive().default(30),
  /**
   * Proxies in front of the gateway whose X-Forwarded-For is believed (express "trust proxy"
   * hops): the client address the admin and failed-token limits count by. 0: the peer address.
   */
  /**
   * Where the gateway serves `GET /metrics`: a listener of its own on HOST, never the public
   * PORT. Unset: the gateway's metrics are not served.
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).default(0),
  /**
   * How long each replica holds a live event in memory: a console reconnecting within this time
   * (to any replica that was up meanwhile) gets every event it missed; later it is told to reload.
   */
  LIVE_EVENT_RETENTION_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(15 * 60_000),
  /**
   * Each replica holds at most this many live events in memory (all organizations), the newest:
   * about half a kilobyte each.
   */
  LIVE_EVENT_LOG_MAX: z.coerce.number().int().min(1).default(100_000),
  /** Live streams one user may hold open on one replica (tabs); more answer 429. */
  LIVE_STREAMS_PER_USER: z.coerce.number().int().min(1).default(5),
  /** Live streams one organization may hold open on one replica; more answer 429. */
  LIVE_STREAMS_PER_ORGANIZATION: z.coerce.number().int().min(1).default(100),
  /**
   * How often each replica checks the sessions of its open streams: a stream ends within this
   * time of its session ending (sign-out, deactivation, expiry) on any replica.
   */
  LIVE_SESSION_CHECK_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  /** A comment line on every idle stream this often, so that proxies keep the connection. */
  LIVE_HEARTBEAT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const loadGatewayConfig = (env = process.env) => loadConfig(gatewayConfigSchema, env);
