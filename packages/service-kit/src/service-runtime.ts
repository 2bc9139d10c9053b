import { Router, type Express } from 'express';
import type { Connection } from 'mongoose';
import { topologyFor, type ServiceName, type TopologyDeclaration } from '@switchboard/contracts';
import { Broker, declareTopology } from './broker';
import type { BaseConfig } from './config';
import { createHttpApp } from './http/create-http-app';
import { requireInternalSecret } from './http/internal-auth';
import { checkServedOperations } from './http/serve-operation';
import { startHttpServer, type PreRoute } from './http/start-http-server';
import { createLeases, type Leases } from './leases';
import { createLogger, type Logger } from './logger';
import { createServiceMetrics, runWithServiceMetrics, type ServiceMetrics } from './metrics';
import { connectMongo, isMongoReady } from './mongo';
import { stopTelemetry } from './telemetry';

export type ServiceConfig = BaseConfig & { PORT: number };

export interface RuntimeDeps<C extends ServiceConfig> {
  config: C;
  logger: Logger;
  db: Connection;
  /** Undefined for a service started with `useBroker: false`. */
  broker: Broker | undefined;
  /** This runtime's Prometheus registry, served at `/metrics`; a service may add its own metrics. */
  metrics: ServiceMetrics;
  /** This process's leases: periodic work runs on the one replica holding its lease. */
  leases: Leases;
}

export interface ServiceParts {
  /** Routes that read the raw request stream and skip the internal guard (signed provider webhooks, proxies). */
  rawRoutes?: (app: Express) => void;
  /** Routes after body parsing; behind the internal secret unless the service is public-facing. */
  routes?: (router: Router) => void;
  /** A public hot path answered before express (the gateway's proxied operations). */
  preRoute?: PreRoute;
  startConsumers?: () => Promise<void>;
  /**
   * Runs first when stopping, before HTTP stops accepting: ends answers that never finish by
   * themselves (event streams), which HTTP would otherwise wait for until its timeout.
   */
  onStopping?: () => void;
  /** Runs after HTTP and consumers have drained, before the broker and database close. */
  onStop?: () => Promise<void>;
}

export interface ServiceRuntimeOptions<C extends ServiceConfig> {
  service: ServiceName;
  config: C;
  logger?: Logger;
  useBroker?: boolean;
  /** The exchanges, queues and bindings asserted on every connection; defaults to the service's part of the shared topology. */
  topology?: readonly TopologyDeclaration[];
  /** Only the gateway faces the outside; every other service trusts nobody without the internal secret. */
  publicFacing?: boolean;
  setup: (deps: RuntimeDeps<C>) => ServiceParts | Promise<ServiceParts>;
}

export interface RunningService<C extends ServiceConfig> extends RuntimeDeps<C> {
  port: number;
  url: string;
  stop(): Promise<void>;
}

/**
 * The lifecycle every service shares: database, broker, HTTP, consumers — started in that order and
 * stopped in reverse, so that in-flight work finishes before its dependencies close.
 */
export async function startServiceRuntime<C extends ServiceConfig>(
  options: ServiceRuntimeOptions<C>,
): Promise<RunningService<C>> {
  const metrics = createServiceMetrics(options.service);
  // Everything started from here (requests, consumed messages, timers) finds this runtime's metrics.
  return runWithServiceMetrics(metrics, () => startRuntime(options, metrics));
}

async function startRuntime<C extends ServiceConfig>(
  options: ServiceRuntimeOptions<C>,
  metrics: ServiceMetrics,
): Promise<RunningService<C>> {
  const { config, service } = options;
  const logger = options.logger ?? createLogger(service, config.LOG_LEVEL);
  const db = await connectMongo({
    url: config.MONGODB_URL,
    dbName: `${config.MONGODB_DB_PREFIX}${service}`,
    logger,
    commandStats: config.DB_COMMAND_STATS ? metrics.registry : undefined,
  });

  const leases = createLeases({ db, service, logger });
  let broker: Broker | undefined;
  let stopping = false;
  try {
    if (options.useBroker !== false) {
      broker = new Broker({ url: config.AMQP_URL, connectionName: service, logger });
      const topology = options.topology ?? topologyFor(service);
      broker.onConnect((_channel, connection) => declareTopology(connection, topology, logger));
      metrics.observeBroker(broker);
    }
    const parts = await options.setup({ config, logger, db, broker, metrics, leases });
    if (broker) await broker.start();

    const app = createHttpApp({
      logger,
      metrics,
      // A public port never serves the metrics: a public-facing service serves them elsewhere.
      serveMetrics: !options.publicFacing,
      bodyLimit: config.HTTP_BODY_LIMIT,
      readinessChecks: [
        { name: 'shutdown', check: () => !stopping },
        { name: 'database', check: () => isMongoReady(db) },
        ...(broker ? [{ name: 'broker', check: () => broker!.isConnected() }] : []),
      ],
      rawRoutes: parts.rawRoutes,
      routes: (expressApp) => {
        const router = Router();
        if (!options.publicFacing) {
          router.use(requireInternalSecret(config.INTERNAL_API_SECRET));
          router.get('/internal/info', (_req, res) => {
            res.json({ status: 'success', service });
          });
        }
        parts.routes?.(router);
        // Every service serves exactly the operations the contracts give it (the gateway its
        // own; the ones it forwards are routed by name, without a route each).
        checkServedOperations(service, router);
        expressApp.use(router);
      },
    });
    const http = await startHttpServer(app, config.PORT, config.HOST, parts.preRoute);
    await parts.startConsumers?.();
    logger.info({ port: http.port }, `${service} listening`);

    return {
      config,
      logger,
      db,
      broker,
      metrics,
      leases,
      port: http.port,
      url: `http://${config.HOST}:${http.port}`,
      async stop() {
        if (stopping) return;
        stopping = true;
        logger.info('stopping');
        parts.onStopping?.();
        await broker?.cancelConsumers();
        await http.close(config.SHUTDOWN_TIMEOUT_MS);
        await parts.onStop?.();
        // Given up once the work under them has stopped: another replica takes over at once.
        await leases.stop();
        await broker?.stop();
        db.removeAllListeners('disconnected');
        await db.close();
        await stopTelemetry();
        logger.info('stopped');
      },
    };
  } catch (error) {
    await leases.stop().catch(() => undefined);
    await broker?.stop().catch(() => undefined);
    await db.close().catch(() => undefined);
    throw error;
  }
}

/** How long a process that met an unexpected error may take to stop before it is cut short. */
export const FATAL_STOP_TIMEOUT_MS = 5_000;

/**
 * The only place a process exits: starts the service, and stops it cleanly on SIGTERM or SIGINT.
 * An unhandled promise rejection or uncaught exception leaves the process in a state nobody
 * planned for, so it is logged as fatal, the service gets a bounded graceful stop (in-flight
 * requests finish, unacked messages go back to the broker) and the process exits 1, for its
 * supervisor (`npm start`, Kubernetes, compose) to start a clean one.
 */
export function runMain(name: string, start: () => Promise<{ stop(): Promise<void> }>): void {
  const fallbackLogger = createLogger(name, process.env.LOG_LEVEL ?? 'info');
  let running: { stop(): Promise<void> } | undefined;
  let stopping: Promise<void> | undefined;

  const stopThenExit = (code: number) => {
    stopping ??= (running?.stop() ?? Promise.resolve()).then(
      () => process.exit(process.exitCode ?? code),
      (error: unknown) => {
        fallbackLogger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };

  const fatal = (what: string) => (error: unknown) => {
    fallbackLogger.fatal({ err: error }, `${what}: stopping the process`);
    process.exitCode = 1;
    // Not unref'd: a stop that hangs must not leave the process up (nor let it end with 0).
    setTimeout(() => {
      fallbackLogger.fatal({ timeoutMs: FATAL_STOP_TIMEOUT_MS }, 'graceful stop took too long');
      process.exit(1);
    }, FATAL_STOP_TIMEOUT_MS);
    stopThenExit(1);
  };
  process.on('unhandledRejection', fatal('unhandled promise rejection'));
  process.on('uncaughtException', fatal('uncaught exception'));

  start().then(
    (service) => {
      running = service;
      let signalled = false;
      const shutdown = (signal: NodeJS.Signals) => {
        if (signalled) return;
        signalled = true;
        fallbackLogger.info({ signal }, 'signal received');
        stopThenExit(0);
      };
      process.on('SIGTERM', shutdown);
      process.on('SIGINT', shutdown);
    },
    (error: unknown) => {
      fallbackLogger.fatal({ err: error }, 'failed to start');
      process.exit(1);
    },
  );
}
