import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, parse } from 'yaml';

/** A Kubernetes object as read from YAML; tests narrow the fields they look at. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type K8sObject = Record<string, any> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
};

/**
 * The subset of kustomize that k8s/ uses, rendered without the kustomize binary (not available
 * here): resources, components, namespace, images, strategic-merge patches on known fields (and
 * `$patch: delete`), JSON 6902 patches and secretGenerator literals without name hashes. Any other field fails the render, so that a
 * kustomization this renderer cannot reproduce faithfully is noticed instead of half-checked.
 */
const SUPPORTED_FIELDS = new Set([
  'apiVersion',
  'kind',
  'namespace',
  'resources',
  'components',
  'images',
  'patches',
  'secretGenerator',
  'generatorOptions',
]);
const CLUSTER_SCOPED_KINDS = new Set(['Namespace']);
/** Strategic-merge keys of the lists patches may touch; any other list is replaced whole. */
const LIST_MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
};
/** Lists whose strategic merge this renderer does not reproduce (merge keys differ by kind). */
const UNSUPPORTED_PATCH_LISTS = new Set(['ports']);

interface Kustomization {
  namespace?: string;
  resources?: string[];
  components?: string[];
  images?: Array<{ name: string; newName?: string; newTag?: string }>;
  patches?: Array<{ path?: string; patch?: string; target?: PatchTarget }>;
  secretGenerator?: Array<{ name: string; literals?: string[]; [other: string]: unknown }>;
  generatorOptions?: { disableNameSuffixHash?: boolean };
}
interface PatchTarget {
  kind?: string;
  name?: string;
}
interface JsonPatchOperation {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

export function readYamlObjects(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((document) => document.toJS() as K8sObject | null)
    .filter((object): object is K8sObject => object !== null);
}

function readKustomization(dir: string, kind: 'Kustomization' | 'Component'): Kustomization {
  const file = path.join(dir, 'kustomization.yaml');
  const kustomization = parse(readFileSync(file, 'utf8')) as Kustomization & { kind?: string };
  if ((kustomization.kind ?? 'Kustomization') !== kind) throw new Error(`${file} is not a ${kind}`);
  for (const field of Object.keys(kustomization)) {
    if (!SUPPORTED_FIELDS.has(field)) throw new Error(`${file}: "${field}" is not rendered here`);
  }
  return kustomization;
}

const readResources = (dir: string, resources: string[] = []) =>
  resources.flatMap((resource) => {
    const target = path.resolve(dir, resource);
    return statSync(target).isDirectory() ? renderKustomization(target) : readYamlObjects(target);
  });

/**
 * The objects `kubectl kustomize dir` prints. `extraComponents` (directories) are applied as if
 * the kustomization listed them under `components`.
 */
export function renderKustomization(dir: string, extraComponents: string[] = []): K8sObject[] {
  const kustomization = readKustomization(dir, 'Kustomization');
  const objects = readResources(dir, kustomization.resources);
  const components = [
    ...(kustomization.components ?? []).map((component) => path.resolve(dir, component)),
    ...extraComponents,
  ];
  for (const componentDir of components) {
    const component = readKustomization(componentDir, 'Component');
    objects.push(...readResources(componentDir, component.resources));
    for (const entry of component.patches ?? []) applyPatch(objects, entry, componentDir);
  }
  objects.push(...generateSecrets(kustomization, dir));
  for (const entry of kustomization.patches ?? []) applyPatch(objects, entry, dir);
  for (const image of kustomization.images ?? []) setImage(objects, image);
  if (kustomization.namespace) {
    for (const object of objects) {
      if (!CLUSTER_SCOPED_KINDS.has(object.kind))
        object.metadata.namespace = kustomization.namespace;
    }
  }
  return objects;
}

function generateSecrets(kustomization: Kustomization, file: string): K8sObject[] {
  return (kustomization.secretGenerator ?? []).map((generator) => {
    const { name, literals = [], ...rest } = generator;
    if (Object.keys(rest).length > 0) throw new Error(`${file}: only literals are rendered`);
    if (!kustomization.generatorOptions?.disableNameSuffixHash) {
      throw new Error(`${file}: generated names with a hash suffix are not rendered here`);
    }
    const data = Object.fromEntries(
      literals.map((literal) => {
        const at = literal.indexOf('=');
        return [literal.slice(0, at), Buffer.from(literal.slice(at + 1)).toString('base64')];
      }),
    );
    return { apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: 'Opaque', data };
  });
}

function applyPatch(
  objects: K8sObject[],
  entry: NonNullable<Kustomization['patches']>[number],
  dir: string,
) {
  const text = entry.path ? readFileSync(path.resolve(dir, entry.path), 'utf8') : entry.patch;
  if (!text) throw new Error(`a patch in ${dir} has neither path nor patch`);
  const patch = parse(text) as K8sObject | JsonPatchOperation[];
  if (Array.isArray(patch)) {
    if (!entry.target) throw new Error(`a JSON 6902 patch in ${dir} needs a target`);
    const targets = select(objects, entry.target);
    for (const object of targets) for (const operation of patch) applyOperation(object, operation);
    return;
  }
  const target = entry.target ?? { kind: patch.kind, name: patch.metadata?.name };
  const targets = select(objects, target);
  if (patch.$patch === 'delete') {
    for (const object of targets) objects.splice(objects.indexOf(object), 1);
    return;
  }
  // The target keeps its own identity: with a target selector the patch's name is only a label.
  const { apiVersion: _apiVersion, kind: _kind, metadata, ...body } = patch;
  const { name: _name, ...metadataPatch } = (metadata ?? {}) as Record<string, unknown>;
  for (const object of targets) mergePatch(object, { ...body, metadata: metadataPatch });
}

function select(objects: K8sObject[], target: PatchTarget): K8sObject[] {
  const found = objects.filter(
    (object) =>
      (!target.kind || object.kind === target.kind) &&
      (!target.name || object.metadata.name === target.name),
  );
  if (found.length === 0)
    throw new Error(`no object matches patch target ${JSON.stringify(target)}`);
  return found;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function mergePatch(target: Record<string, unknown>, patch: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(patch)) {
    if (UNSUPPORTED_PATCH_LISTS.has(key)) throw new Error(`patching "${key}" is not rendered here`);
    if (value === null) {
      delete target[key];
    } else if (Array.isArray(value) && LIST_MERGE_KEYS[key] && Array.isArray(target[key])) {
      const mergeKey = LIST_MERGE_KEYS[key]!;
      const list = target[key] as Array<Record<string, unknown>>;
      for (const item of value as Array<Record<string, unknown>>) {
        const existing = list.find((candidate) => candidate[mergeKey] === item[mergeKey]);
        if (existing) mergePatch(existing, item);
        else list.push(structuredClone(item));
      }
    } else if (isPlainObject(value) && isPlainObject(target[key])) {
      mergePatch(target[key] as Record<string, unknown>, value);
    } else {
      target[key] = structuredClone(value);
    }
  }
}

function applyOperation(object: K8sObject, operation: JsonPatchOperation): void {
  const keys = operation.path
    .split('/')
    .slice(1)
    .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = keys.pop();
  if (last === undefined) throw new Error(`empty JSON patch path`);
  let parent: unknown = object;
  for (const key of keys) {
    parent = (parent as Record<string, unknown>)?.[key];
    if (parent === undefined) throw new Error(`JSON patch path ${operation.path} does not exist`);
  }
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last);
    if (operation.op === 'add') parent.splice(index, 0, operation.value);
    else if (operation.op === 'replace') parent[index] = operation.value;
    else parent.splice(index, 1);
    return;
  }
  const record = parent as Record<string, unknown>;
  if (operation.op !== 'add' && !(last in record)) {
    throw new Error(`JSON patch ${operation.op} of missing ${operation.path}`);
  }
  if (operation.op === 'remove') delete record[last];
  else record[last] = structuredClone(operation.value);
}

function setImage(objects: K8sObject[], image: NonNullable<Kustomization['images']>[number]) {
  for (const object of objects) {
    for (const container of object.spec?.template?.spec?.containers ?? []) {
      // `registry:5000/name:tag`: the tag follows the last colon after the last slash.
      const reference = String(container.image);
      const colon = reference.lastIndexOf(':');
      const hasTag = colon > reference.lastIndexOf('/');
      const name = hasTag ? reference.slice(0, colon) : reference;
      const tag = hasTag ? reference.slice(colon + 1) : undefined;
      if (name !== image.name) continue;
      const newTag = image.newTag ?? tag;
      container.image = `${image.newName ?? name}${newTag ? `:${newTag}` : ''}`;
    }
  }
}
