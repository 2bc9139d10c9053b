import path from 'node:path';
import { BROKER_TOPOLOGY, type QueueDeclaration } from '@switchboard/contracts';
import { K8S_DIR, find, validateObject } from './support/k8s';
import { renderKustomization, type K8sObject } from './support/kustomize';
import { SERVICE_NAMES } from './support/repo';

const COMPONENT = path.join(K8S_DIR, 'components', 'queue-depth-autoscaling');
/** What an overlay with `resources: [../../base]` and this component renders. */
const objects = renderKustomization(path.join(K8S_DIR, 'base'), [COMPONENT]);

/**
 * Each broker consumer's work queues, from the shared topology (retry and parking queues aside,
 * and queues with a single active consumer: more replicas would not read them faster).
 */
const workQueues = new Map<string, string[]>();
for (const item of BROKER_TOPOLOGY) {
  if (item.kind !== 'queue' || (item as QueueDeclaration).role !== 'work') continue;
  if (item.arguments['x-single-active-consumer'] === true) continue;
  workQueues.set(item.owner, [...(workQueues.get(item.owner) ?? []), item.name].sort());
}

describe('k8s/components/queue-depth-autoscaling', () => {
  test('when added to the base, then every object it renders validates, KEDA objects included', () => {
    expect(objects.some((object) => object.kind === 'ScaledObject')).toBe(true);
    for (const object of objects) validateObject(object);
  });

  test.each([...workQueues.keys()])(
    'when added, then %s scales on CPU and on the depth of exactly its work queues, and KEDA owns its autoscaler',
    (name) => {
      const scaled = find(objects, 'ScaledObject', name)!;
      expect(scaled.spec.scaleTargetRef).toEqual({ name });
      expect(find(objects, 'Deployment', name)).toBeDefined();
      expect(find(objects, 'HorizontalPodAutoscaler', name)).toBeUndefined();
      expect(scaled.spec.minReplicaCount).toBeLessThanOrEqual(scaled.spec.maxReplicaCount);
      const triggers = scaled.spec.triggers as K8sObject[];
      expect(triggers.filter((trigger) => trigger.type === 'cpu')).toHaveLength(1);
      const queues = triggers.filter((trigger) => trigger.type === 'rabbitmq');
      expect(queues.map((trigger) => trigger.metadata.queueName).sort()).toEqual(
        workQueues.get(name),
      );

      // KEDA connects with the URL the service itself reads from the same Secret.
      const container = find(objects, 'Deployment', name)!.spec.template.spec.containers[0];
      const amqp = container.env.find((variable: K8sObject) => variable.name === 'AMQP_URL');
      for (const trigger of queues) {
        const authentication = find(
          objects,
          'TriggerAuthentication',
          trigger.authenticationRef.name,
        );
        expect(authentication?.spec.secretTargetRef).toEqual([
          { parameter: 'host', ...amqp.valueFrom.secretKeyRef },
        ]);
      }
    },
  );

  test('when added, then the services that consume no work queue keep their CPU autoscaler', () => {
    const others = SERVICE_NAMES.filter((name) => !workQueues.has(name));
    expect(others.length).toBeGreaterThan(0);
    for (const name of others) {
      expect(find(objects, 'HorizontalPodAutoscaler', name)).toBeDefined();
      expect(find(objects, 'ScaledObject', name)).toBeUndefined();
    }
  });
});
