import path from 'node:path';
import { environmentProblems, hostOf } from './support/environment-checks';
import {
  OVERLAYS,
  PROD_SECRET_EXAMPLE,
  containerEnvironment,
  find,
  patchFiles,
  readSecretExample,
  renderOverlay,
  validateObject,
  yamlFiles,
} from './support/k8s';
import { readYamlObjects, type K8sObject } from './support/kustomize';
import {
  SERVICE_NAMES,
  SIMULATOR,
  launcherWiring,
  loadServiceConfig,
  mainPathOf,
  mainSourceExists,
  pathsServedByKit,
  pathsServedBySimulator,
  startsWithKitRuntime,
} from './support/repo';

const renders = Object.fromEntries(OVERLAYS.map((overlay) => [overlay, renderOverlay(overlay)]));
/** The overlay whose Secret is created outside the repository, from the documented example. */
const externalSecretsOf = (overlay: string) => (overlay === 'prod' ? readSecretExample() : []);

const containerOf = (deployment: K8sObject): K8sObject =>
  deployment.spec.template.spec.containers[0];
const httpPortOf = (container: K8sObject): number =>
  container.ports.find((port: K8sObject) => port.name === 'http').containerPort;
/** Where Prometheus scrapes: the gateway's own metrics listener, the http port elsewhere. */
const metricsPortOf = (container: K8sObject): number =>
  (
    container.ports.find((port: K8sObject) => port.name === 'metrics') ??
    container.ports.find((port: K8sObject) => port.name === 'http')
  ).containerPort;

describe('k8s/', () => {
  test('when each manifest file and each overlay render is validated against the Kubernetes schemas, then none fails', () => {
    expect(OVERLAYS).toEqual(['dev', 'prod']);
    const patches = patchFiles();
    const manifests = yamlFiles().filter(
      (file) => path.basename(file) !== 'kustomization.yaml' && !patches.has(file),
    );
    expect(manifests).toContain(PROD_SECRET_EXAMPLE);
    for (const file of manifests)
      for (const object of readYamlObjects(file)) validateObject(object);
    for (const objects of Object.values(renders))
      for (const object of objects) validateObject(object);
  });

  test('when prod is rendered, then RabbitMQ is a RabbitmqCluster of three nodes and MongoDB a MongoDBCommunity replica set of three members, and the documented connection URLs name them with majority writes and retries', () => {
    const rabbit = find(renders.prod!, 'RabbitmqCluster', 'switchboard-rabbitmq');
    const mongo = find(renders.prod!, 'MongoDBCommunity', 'switchboard-mongodb');
    expect(rabbit?.spec.replicas).toBeGreaterThanOrEqual(3);
    // pause_minority: a node cut off from the majority stops instead of diverging.
    expect(rabbit?.spec.rabbitmq.additionalConfig).toMatch(
      /cluster_partition_handling = pause_minority/,
    );
    expect(mongo?.spec).toMatchObject({ type: 'ReplicaSet' });
    expect(mongo?.spec.members).toBeGreaterThanOrEqual(3);
    expect(mongo?.metadata.namespace).toBe('switchboard');
    // Neither operator resource reaches dev, which runs its own single MongoDB and RabbitMQ.
    expect(renders.dev!.some((object) => /Rabbitmq|MongoDB/.test(object.kind))).toBe(false);

    const secret = readSecretExample()[0]!.stringData as Record<string, string>;
    // A seed list of several hosts, which WHATWG URL does not parse: split by hand.
    const [, user, hosts, query] = /^mongodb:\/\/([^:]+):[^@]+@([^/]+)\/\?(.*)$/.exec(
      secret.MONGODB_URL!,
    )!;
    expect(hosts!.split(',')).toHaveLength(mongo!.spec.members);
    expect(hosts).toContain(`${mongo!.metadata.name}-0.${mongo!.metadata.name}-svc`);
    expect(Object.fromEntries(new URLSearchParams(query))).toMatchObject({
      replicaSet: mongo!.metadata.name,
      w: 'majority',
      retryWrites: 'true',
      retryReads: 'true',
    });
    expect(mongo!.spec.users.map((entry: { name: string }) => entry.name)).toContain(user);
    expect(new URL(secret.AMQP_URL!).hostname).toBe(`${rabbit!.metadata.name}.switchboard.svc`);
  });

  test('when prod is rendered, then it carries no Secret (credentials live outside the repository) and no simulator', () => {
    expect(renders.prod!.filter((object) => object.kind === 'Secret')).toEqual([]);
    expect(find(renders.prod!, 'Deployment', SIMULATOR)).toBeUndefined();
    expect(find(renders.dev!, 'Deployment', SIMULATOR)).toBeDefined();
  });
});

describe.each(OVERLAYS)('k8s/overlays/%s', (overlay) => {
  const objects = renders[overlay]!;
  const namespace = find(
    objects,
    'Namespace',
    overlay === 'prod' ? 'switchboard' : `switchboard-${overlay}`,
  );
  const deployment = (name: string) => find(objects, 'Deployment', name)!;
  const processes = [
    ...SERVICE_NAMES,
    ...(find(objects, 'Deployment', SIMULATOR) ? [SIMULATOR] : []),
  ];

  test('when rendered, then every object but the Namespace lives in the overlay namespace', () => {
    expect(namespace).toBeDefined();
    for (const object of objects.filter((item) => item.kind !== 'Namespace')) {
      expect({
        object: `${object.kind}/${object.metadata.name}`,
        namespace: object.metadata.namespace,
      }).toEqual({
        object: `${object.kind}/${object.metadata.name}`,
        namespace: namespace!.metadata.name,
      });
    }
  });

  test.each(SERVICE_NAMES)(
    'when rendered, then %s has a Deployment, Service, autoscaler and disruption budget that agree',
    (name) => {
      const pods = deployment(name);
      const service = find(objects, 'Service', name);
      const autoscaler = find(objects, 'HorizontalPodAutoscaler', name);
      const budget = find(objects, 'PodDisruptionBudget', name);
      expect([pods, service, autoscaler, budget].every(Boolean)).toBe(true);

      const podLabels = pods.spec.template.metadata.labels;
      expect(podLabels).toMatchObject(pods.spec.selector.matchLabels);
      expect(podLabels).toMatchObject(service!.spec.selector);
      expect(podLabels).toMatchObject(budget!.spec.selector.matchLabels);
      expect(autoscaler!.spec.scaleTargetRef).toEqual({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name,
      });
      // The autoscaler owns the replica count; a fixed one would be reset by every apply.
      expect(pods.spec.replicas).toBeUndefined();
      expect(autoscaler!.spec.minReplicas).toBeLessThanOrEqual(autoscaler!.spec.maxReplicas);
      expect(autoscaler!.spec.metrics).toContainEqual(
        expect.objectContaining({
          type: 'Resource',
          resource: expect.objectContaining({ name: 'cpu' }),
        }),
      );

      const container = containerOf(pods);
      expect(service!.spec.ports).toEqual([
        { name: 'http', port: httpPortOf(container), targetPort: 'http' },
      ]);
    },
  );

  test.each(processes)(
    'when %s runs, then it is the image run by node as a non-root user with a read-only root filesystem',
    (name) => {
      const pods = deployment(name);
      const pod = pods.spec.template.spec;
      const container = containerOf(pods);
      expect(container.args).toEqual([mainPathOf(name)]);
      expect(mainSourceExists(mainPathOf(name))).toBe(true);
      expect(container.command).toBeUndefined(); // the image's ENTRYPOINT: node
      expect(container.image).toBe(
        overlay === 'prod' ? 'registry.example.com/switchboard:0.1.0' : 'switchboard:dev',
      );
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: expect.any(Number),
      });
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(container.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      const tmp = container.volumeMounts.find((mount: K8sObject) => mount.mountPath === '/tmp');
      expect(
        pod.volumes.find((volume: K8sObject) => volume.name === tmp?.name)?.emptyDir,
      ).toBeDefined();
      expect(container.resources.requests).toEqual({
        cpu: expect.any(String),
        memory: expect.any(String),
      });
      expect(container.resources.limits.memory).toEqual(expect.any(String));
    },
  );

  test.each(SERVICE_NAMES)(
    'when %s is told to stop, then it stops taking traffic before SIGTERM and has time to drain',
    async (name) => {
      const pods = deployment(name);
      const container = containerOf(pods);
      const preStopSeconds = container.lifecycle.preStop.sleep.seconds as number;
      expect(preStopSeconds).toBeGreaterThanOrEqual(3);
      const facts = await loadServiceConfig(name);
      const { environment } = containerEnvironment(container, objects, externalSecretsOf(overlay));
      const shutdownSeconds = Number(facts.schema.parse(environment).SHUTDOWN_TIMEOUT_MS) / 1000;
      expect(pods.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(
        preStopSeconds + shutdownSeconds,
      );
    },
  );

  test('when the kubelet probes and Prometheus scrapes, then they ask routes each process serves on its http port', async () => {
    const probed = (container: K8sObject) =>
      ['startupProbe', 'livenessProbe', 'readinessProbe']
        .filter((probe) => container[probe])
        .map((probe) => ({ probe, ...container[probe].httpGet }));
    const kitPaths = new Set<string>();
    for (const name of SERVICE_NAMES) {
      expect({ name, kitRuntime: startsWithKitRuntime(name) }).toEqual({ name, kitRuntime: true });
      const pods = deployment(name);
      const container = containerOf(pods);
      const probes = probed(container);
      expect(probes.map(({ probe, path: route }) => `${probe} ${route}`)).toEqual(
        expect.arrayContaining(['livenessProbe /livez', 'readinessProbe /readyz']),
      );
      for (const probe of probes) expect(probe.port).toBe('http');
      const annotations = pods.spec.template.metadata.annotations;
      expect(annotations).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(metricsPortOf(container)),
        'prometheus.io/path': '/metrics',
      });
      for (const route of [
        ...probes.map((probe) => probe.path),
        annotations['prometheus.io/path'],
      ]) {
        kitPaths.add(route);
      }
    }
    expect(await pathsServedByKit([...kitPaths])).toEqual(kitPaths);

    const simulator = find(objects, 'Deployment', SIMULATOR);
    if (simulator) {
      const paths = new Set(probed(containerOf(simulator)).map((probe) => probe.path as string));
      expect(await pathsServedBySimulator([...paths])).toEqual(paths);
    }
  });

  test.each(SERVICE_NAMES)(
    'when %s starts, then every variable its config requires is provided and its config is valid',
    async (name) => {
      const container = containerOf(deployment(name));
      const { environment, problems } = containerEnvironment(
        container,
        objects,
        externalSecretsOf(overlay),
      );
      expect(problems).toEqual([]);
      const facts = await loadServiceConfig(name);
      expect(environmentProblems(facts, environment, { port: httpPortOf(container) })).toEqual([]);
    },
  );

  test('when rendered, then no process lets customer URLs reach private or loopback addresses (ALLOW_PRIVATE_URLS stays off)', async () => {
    for (const name of SERVICE_NAMES) {
      const container = containerOf(deployment(name));
      const { environment } = containerEnvironment(container, objects, externalSecretsOf(overlay));
      const config = (await loadServiceConfig(name)).schema.parse(environment);
      expect({ name, allowPrivate: config.ALLOW_PRIVATE_URLS }).toEqual({
        name,
        allowPrivate: false,
      });
    }
  });

  test('when services call each other, then each address npm start wires names the Service and port in the cluster', () => {
    const wiring = launcherWiring();
    for (const name of SERVICE_NAMES) {
      const { environment } = containerEnvironment(
        containerOf(deployment(name)),
        objects,
        externalSecretsOf(overlay),
      );
      for (const [variable, target] of Object.entries(wiring)) {
        const internal = SERVICE_NAMES.includes(target as never) && target !== 'gateway';
        if (!internal && overlay === 'prod') continue; // the public address and Meta's, in prod
        const port = find(objects, 'Service', target)?.spec.ports[0].port;
        expect({ name, variable, value: environment[variable] }).toEqual({
          name,
          variable,
          value: `http://${target}:${port}`,
        });
      }
      for (const [variable, value] of Object.entries(environment)) {
        const host = hostOf(value);
        if (!host || host.includes('.')) continue; // outside the namespace: managed services, Meta
        expect({ variable, host, service: Boolean(find(objects, 'Service', host)) }).toEqual({
          variable,
          host,
          service: true,
        });
      }
    }
  });

  test('when a request reaches the Ingress, then the public paths go to the gateway and the provider webhook to inbound, and nothing else', () => {
    const ingresses = objects.filter((object) => object.kind === 'Ingress');
    expect(ingresses).toHaveLength(1);
    const routes = ingresses[0]!.spec.rules.flatMap((rule: K8sObject) =>
      rule.http.paths.map((route: K8sObject) => {
        const backend = route.backend.service;
        expect(
          find(objects, 'Service', backend.name)?.spec.ports.map((port: K8sObject) => port.name),
        ).toContain(backend.port.name);
        return `${route.path} ${route.pathType} → ${backend.name}`;
      }),
    );
    expect(routes.sort()).toEqual([
      '/admin Prefix → gateway',
      '/api/svc Prefix → gateway',
      '/developer Prefix → gateway',
      '/webhook/svc Prefix → inbound',
    ]);
  });
});
