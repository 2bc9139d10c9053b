import { existsSync, readFileSync, readdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { ZodType } from 'zod';
import { topologyFor, type ServiceName } from '@switchboard/contracts';
import { createSimulator, silentLogger } from '@switchboard/provider-simulator';
import { createHttpApp, createLogger, createServiceMetrics } from '@switchboard/service-kit';
import { portsFrom, SERVICES as LAUNCHED } from '../../../scripts/launcher';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const SIMULATOR = 'provider-simulator';

/** The services, as the repository has them: every folder under services/ with a config. */
export const SERVICE_NAMES = readdirSync(path.join(ROOT, 'services'))
  .filter((name) => existsSync(path.join(ROOT, 'services', name, 'src', 'config.ts')))
  .sort() as ServiceName[];

/** `npm start`'s processes (the services and the simulator) and their ports. */
export const LAUNCHED_PROCESSES: string[] = [...LAUNCHED];
export const LOCAL_PORTS: Record<string, number> = portsFrom(8080);

/** The compiled entry point a container runs, relative to the image's working directory. */
export function mainPathOf(process: string): string {
  return process === SIMULATOR
    ? 'packages/provider-simulator/dist/main.js'
    : `services/${process}/dist/main.js`;
}

/** True when the TypeScript source that `tsc -b` compiles to `mainPath` exists. */
export function mainSourceExists(mainPath: string): boolean {
  return existsSync(path.join(ROOT, mainPath.replace(/\/dist\/main\.js$/, '/src/main.ts')));
}

/**
 * The variables `npm start` wires between processes (`MESSAGING_URL: url('messaging')` …), read
 * from scripts/launcher.js so that a new one is noticed here.
 */
export function launcherWiring(): Record<string, string> {
  const source = readFileSync(path.join(ROOT, 'scripts', 'launcher.js'), 'utf8');
  const wiring = Object.fromEntries(
    [...source.matchAll(/^\s+([A-Z][A-Z0-9_]*): url\('([a-z-]+)'\),?$/gm)].map((match) => [
      match[1]!,
      match[2]!,
    ]),
  );
  if (Object.keys(wiring).length === 0) throw new Error('no wiring found in scripts/launcher.js');
  return wiring;
}

export interface ServiceConfigFacts {
  name: ServiceName;
  schema: ZodType<Record<string, unknown>>;
  /** Keys without a default that are not optional: the service refuses to start without them. */
  required: string[];
  usesBroker: boolean;
}

export async function loadServiceConfig(name: ServiceName): Promise<ServiceConfigFacts> {
  const module = (await import(path.join(ROOT, 'services', name, 'src', 'config'))) as Record<
    string,
    unknown
  >;
  const schemas = Object.entries(module).filter(
    ([key, value]) => key.endsWith('ConfigSchema') && typeof value === 'object',
  );
  if (schemas.length !== 1)
    throw new Error(`services/${name}/src/config.ts: no single *ConfigSchema`);
  const schema = schemas[0]![1] as ZodType<Record<string, unknown>>;
  const empty = schema.safeParse({});
  const required = empty.success
    ? []
    : [...new Set(empty.error.issues.map((issue) => String(issue.path[0])))].sort();
  return { name, schema, required, usesBroker: topologyFor(name).length > 0 };
}

/** Whether the service starts through the kit's runtime, which serves /livez, /readyz and /metrics. */
export function startsWithKitRuntime(name: ServiceName): boolean {
  const source = readFileSync(path.join(ROOT, 'services', name, 'src', 'start-service.ts'), 'utf8');
  return source.includes('startServiceRuntime(');
}

/** The paths among `paths` that answer 200 on a real server. */
async function servedPaths(
  start: () => Promise<{ url: string; stop: () => Promise<void> }>,
  paths: string[],
): Promise<Set<string>> {
  const server = await start();
  try {
    const served = await Promise.all(
      paths.map(async (route) => ((await fetch(server.url + route)).status === 200 ? route : '')),
    );
    return new Set(served.filter(Boolean));
  } finally {
    await server.stop();
  }
}

/** Of `paths`, those the kit's HTTP app (as every service's runtime builds it) answers with 200. */
export function pathsServedByKit(paths: string[]): Promise<Set<string>> {
  return servedPaths(async () => {
    const app = createHttpApp({
      logger: createLogger('deploy-test', 'silent'),
      metrics: createServiceMetrics('deploy-test', { defaultMetrics: false }),
      readinessChecks: [{ name: 'database', check: () => true }],
      routes: () => undefined,
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }, paths);
}

/** Of `paths`, those the provider simulator answers with 200. */
export function pathsServedBySimulator(paths: string[]): Promise<Set<string>> {
  return servedPaths(async () => {
    const simulator = createSimulator({ logger: silentLogger });
    const { url } = await simulator.start(0, '127.0.0.1');
    return { url, stop: () => simulator.stop() };
  }, paths);
}
