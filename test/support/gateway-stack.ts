import {
  CreateOrganizationResponseSchema,
  type CreateOrganizationResponse,
  type Plan,
} from '@switchboard/contracts';
import type { RunningService } from '@switchboard/service-kit';
import { gatewayConfigSchema, type GatewayConfig } from '../../services/gateway/src/config';
import { startService as startGateway } from '../../services/gateway/src/start-service';
import { messagingConfigSchema, type MessagingConfig } from '../../services/messaging/src/config';
import { startService as startMessaging } from '../../services/messaging/src/start-service';
import { MONGODB_URL, randomSecret } from './test-infra';

export interface GatewayStack {
  gateway: RunningService<GatewayConfig>;
  messaging: RunningService<MessagingConfig>;
  adminToken: string;
  internalSecret: string;
  createOrganization(plan?: Plan, name?: string): Promise<CreateOrganizationResponse>;
  /** Starts messaging again on its old port after a test stopped it. */
  restartMessaging(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The gateway with the service it needs to create organizations (messaging provisions each
 * organization's channel), both in-process on free ports. Component tests of other services
 * put their own service behind it with `gatewayEnv` (e.g. `{ CONTACTS_URL: contacts.url }`).
 */
export async function startGatewayStack(options: {
  dbPrefix: string;
  amqpUrl: string;
  internalSecret?: string;
  gatewayEnv?: Record<string, string>;
  messagingEnv?: Record<string, string>;
}): Promise<GatewayStack> {
  const adminToken = randomSecret();
  const internalSecret = options.internalSecret ?? randomSecret();
  const common = {
    MONGODB_URL,
    MONGODB_DB_PREFIX: options.dbPrefix,
    AMQP_URL: options.amqpUrl,
    INTERNAL_API_SECRET: internalSecret,
    LOG_LEVEL: 'silent',
    PORT: '0',
  };
  const messagingConfig = messagingConfigSchema.parse({ ...common, ...options.messagingEnv });
  const messaging = await startMessaging(messagingConfig);
  const gateway = await startGateway(
    gatewayConfigSchema.parse({
      ...common,
      ADMIN_API_TOKEN: adminToken,
      MESSAGING_URL: messaging.url,
      // Tests ask faster than the clients the plans are made for; the limits have tests of their own.
      API_RATE_SCALE: '1000',
      ADMIN_RATE_PER_SECOND: '1000',
      FAILED_AUTH_PER_MINUTE: '100000',
      ...options.gatewayEnv,
    }),
  ).catch(async (error: unknown) => {
    await messaging.stop();
    throw error;
  });

  const stack: GatewayStack = {
    gateway,
    messaging,
    adminToken,
    internalSecret,
    async createOrganization(plan = 'free', name = 'Test Org') {
      const response = await fetch(`${gateway.url}/admin/organizations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, plan }),
      });
      if (response.status !== 201) {
        throw new Error(`creating an organization failed: ${await response.text()}`);
      }
      return CreateOrganizationResponseSchema.parse(await response.json());
    },
    async restartMessaging() {
      stack.messaging = await startMessaging({ ...messagingConfig, PORT: stack.messaging.port });
    },
    async stop() {
      await gateway.stop();
      await stack.messaging.stop();
    },
  };
  return stack;
}
