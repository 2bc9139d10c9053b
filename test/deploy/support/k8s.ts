import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ScaledObject, TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';
import { parse } from 'yaml';
import { readYamlObjects, renderKustomization, type K8sObject } from './kustomize';
import { OPERATOR_MODELS } from './operator-resources';
import { ROOT } from './repo';

export const K8S_DIR = path.join(ROOT, 'k8s');
export const OVERLAYS = readdirSync(path.join(K8S_DIR, 'overlays')).sort();
export const PROD_SECRET_EXAMPLE = path.join(
  K8S_DIR,
  'overlays',
  'prod',
  'switchboard-secrets.example.yaml',
);

export const renderOverlay = (overlay: string) =>
  renderKustomization(path.join(K8S_DIR, 'overlays', overlay));

/** The kinds k8s/ may use, each with its validator generated from the Kubernetes OpenAPI schema. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'keda.sh/v1alpha1/TriggerAuthentication': TriggerAuthentication,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/Ingress': Ingress,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/Secret': Secret,
  'v1/Service': Service,
  ...OPERATOR_MODELS,
};

/** Throws with the schema's complaint when `object` is not a valid object of its kind. */
export function validateObject(object: K8sObject): void {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!Model) throw new Error(`${object.apiVersion} ${object.kind} is not a known kind`);
  try {
    new Model(structuredClone(object) as never).validate();
  } catch (error) {
    throw new Error(`${object.kind} ${object.metadata?.name}: ${(error as Error).message}`);
  }
}

/** Every YAML file under k8s/ (recursively). */
export function yamlFiles(dir = K8S_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(full);
    return /\.ya?ml$/.test(entry.name) ? [full] : [];
  });
}

/** Files that kustomizations name as patches: partial objects, not manifests of their own. */
export function patchFiles(): Set<string> {
  const patches = new Set<string>();
  for (const file of yamlFiles().filter((name) => path.basename(name) === 'kustomization.yaml')) {
    const kustomization = parse(readFileSync(file, 'utf8')) as { patches?: { path?: string }[] };
    for (const patch of kustomization.patches ?? []) {
      if (patch.path) patches.add(path.resolve(path.dirname(file), patch.path));
    }
  }
  return patches;
}

export const find = (objects: K8sObject[], kind: string, name: string) =>
  objects.find((object) => object.kind === kind && object.metadata.name === name);

/** A Secret's values, decoded, whether written as `data` (base64) or `stringData`. */
function secretValues(secret: K8sObject): Record<string, string> {
  const decoded = Object.entries((secret.data ?? {}) as Record<string, string>).map(
    ([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')],
  );
  return { ...Object.fromEntries(decoded), ...(secret.stringData ?? {}) };
}

/**
 * The environment a container starts with: its ConfigMaps (`envFrom`), literal values and the
 * keys it takes from Secrets and ConfigMaps. Secrets come from the render, or — for an overlay
 * whose Secret lives outside the repository — from the documented example. A reference to a
 * missing object or key is a problem unless the reference is optional.
 */
export function containerEnvironment(
  container: K8sObject,
  objects: K8sObject[],
  externalSecrets: K8sObject[] = [],
): { environment: Record<string, string>; problems: string[] } {
  const environment: Record<string, string> = {};
  const problems: string[] = [];
  const configMap = (name: string) =>
    find(objects, 'ConfigMap', name)?.data as Record<string, string>;
  const secret = (name: string) => {
    const found = find(objects, 'Secret', name) ?? find(externalSecrets, 'Secret', name);
    return found && secretValues(found);
  };
  for (const source of container.envFrom ?? []) {
    const data = source.configMapRef ? configMap(source.configMapRef.name) : undefined;
    if (!data) problems.push(`envFrom ${JSON.stringify(source)} names no ConfigMap of the render`);
    Object.assign(environment, data);
  }
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) {
      environment[variable.name] = String(variable.value);
      continue;
    }
    const reference = variable.valueFrom?.secretKeyRef ?? variable.valueFrom?.configMapKeyRef;
    const values = variable.valueFrom?.secretKeyRef
      ? secret(reference.name)
      : configMap(reference?.name);
    const value = values?.[reference?.key];
    if (value !== undefined) environment[variable.name] = value;
    else if (!reference?.optional)
      problems.push(`${variable.name}: ${JSON.stringify(reference)} is missing`);
  }
  return { environment, problems };
}

export function readSecretExample(): K8sObject[] {
  return readYamlObjects(PROD_SECRET_EXAMPLE);
}
