import { connect, createServer, type Server, type Socket } from 'node:net';
import {
  PORT_SPAN,
  SERVICES,
  launchSystem,
  portsFrom,
  type LaunchedSystem,
  type ServiceProcessName,
} from '../../scripts/launcher';
import {
  MONGODB_URL,
  dropDatabasesWithPrefix,
  freePortBlock,
  isolatedAmqpUrl,
  randomSecret,
  uniquePrefix,
} from './test-infra';

export type ServiceName = Exclude<ServiceProcessName, 'provider-simulator'>;
export const REPLICATED: ServiceName[] = SERVICES.filter(
  (name): name is ServiceName => name !== 'provider-simulator',
);

/**
 * Two replicas of every service on one database and one broker virtual host, as two launched
 * systems (the second without a provider simulator of its own). Each service is reached through
 * a balancer standing in for a Kubernetes Service: a TCP proxy that spreads connections over the
 * replicas and skips one that refuses them. Every service's peer URLs, the public base URL (the
 * provider's webhooks) included, point at the balancers.
 */
export interface ReplicatedSystem {
  replicas: [LaunchedSystem, LaunchedSystem];
  /** Each service's balanced URL. */
  urls: Record<ServiceName, string>;
  gateway: string;
  simulator: string;
  dbPrefix: string;
  adminToken: string;
  internalSecret: string;
  output: string[];
  stop(): Promise<void>;
}

/** A TCP proxy over `ports`: each connection goes to the next replica that accepts it. */
function startBalancer(ports: number[]): Promise<{ server: Server; port: number }> {
  let next = 0;
  const server = createServer((client: Socket) => {
    client.pause();
    const start = next++;
    const attempt = (tried: number) => {
      if (tried >= ports.length || client.destroyed) {
        client.destroy();
        return;
      }
      const upstream = connect(ports[(start + tried) % ports.length]!, '127.0.0.1');
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
      upstream.on('error', () => {
        if (!connected) attempt(tried + 1);
        else client.destroy();
      });
      upstream.on('close', () => client.destroy());
      client.on('error', () => upstream.destroy());
      client.on('close', () => upstream.destroy());
    };
    attempt(0);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0 });
    });
  });
}

const ENV_OF: Record<ServiceName, string> = {
  gateway: 'GATEWAY_URL',
  messaging: 'MESSAGING_URL',
  contacts: 'CONTACTS_URL',
  campaigns: 'CAMPAIGNS_URL',
  webhooks: 'WEBHOOKS_URL',
  inbound: 'INBOUND_URL',
};

export async function startReplicatedSystem(
  name: string,
  env: Record<string, string> = {},
): Promise<ReplicatedSystem> {
  const prefix = uniquePrefix(name);
  const adminToken = randomSecret();
  const internalSecret = randomSecret();
  const broker = await isolatedAmqpUrl(name);
  const output: string[] = [];
  const [firstBase, secondBase] = [await freePortBlock(PORT_SPAN), await freePortBlock(PORT_SPAN)];
  const balancers = Object.fromEntries(
    await Promise.all(
      REPLICATED.map(
        async (service) =>
          [
            service,
            await startBalancer([portsFrom(firstBase)[service], portsFrom(secondBase)[service]]),
          ] as const,
      ),
    ),
  ) as Record<ServiceName, { server: Server; port: number }>;
  const urls = Object.fromEntries(
    REPLICATED.map((service) => [service, `http://127.0.0.1:${balancers[service].port}`]),
  ) as Record<ServiceName, string>;
  const simulator = `http://127.0.0.1:${portsFrom(firstBase)['provider-simulator']}`;
  const common = {
    MONGODB_URL,
    MONGODB_DB_PREFIX: prefix,
    AMQP_URL: broker.url,
    ADMIN_API_TOKEN: adminToken,
    INTERNAL_API_SECRET: internalSecret,
    LOG_LEVEL: 'warn',
    API_RATE_SCALE: '1000',
    ADMIN_RATE_PER_SECOND: '1000',
    FAILED_AUTH_PER_MINUTE: '100000',
    GATEWAY_REPLICAS: '2',
    ...Object.fromEntries(REPLICATED.map((service) => [ENV_OF[service], urls[service]])),
    PUBLIC_BASE_URL: urls.gateway,
    PROVIDER_BASE_URL: simulator,
    PROVIDER_SIMULATOR_URL: simulator,
    ...env,
  };
  const replicas: LaunchedSystem[] = [];
  const stop = async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await Promise.all(
      Object.values(balancers).map(
        ({ server }) => new Promise((resolve) => server.close(() => resolve(undefined))),
      ),
    );
    await dropDatabasesWithPrefix(prefix);
    await broker.drop();
  };
  try {
    for (const [index, basePort] of [firstBase, secondBase].entries()) {
      replicas.push(
        await launchSystem({
          env: common,
          basePort,
          only: index === 0 ? SERVICES : REPLICATED,
          onLine: (service, line) => output.push(`${service}#${index + 1}: ${line}`),
        }),
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    replicas: replicas as [LaunchedSystem, LaunchedSystem],
    urls,
    gateway: urls.gateway,
    simulator,
    dbPrefix: prefix,
    adminToken,
    internalSecret,
    output,
    stop,
  };
}
