import { GraphError, invalidParameter, missingParameter } from '../graph-error';

/**
 * Readers for request parameters that fail the way Graph does. Paths are written as Meta writes
 * them in error details: `interactive['action']['buttons'][0]['reply']['title']`.
 */
export type Json = Record<string, unknown>;

export const isJsonObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent === '' ? key : `${parent}['${key}']`;
}

/** Characters as a person counts them (code points), not UTF-16 units. */
export const characterCount = (text: string): number => [...text].length;

interface ReadOptions {
  required?: boolean;
  /** Top-level Graph parameters answer 100 when missing; fields inside a type object 131008. */
  missingCode?: 100 | 131008;
}

function missing(path: string, code: 100 | 131008 = 131008): GraphError {
  const details = `The parameter ${path} is required.`;
  return code === 100 ? invalidParameter(details) : missingParameter(details);
}

export function readObject(
  parent: Json,
  key: string,
  parentPath: string,
  options: ReadOptions & { required: true },
): Json;
export function readObject(
  parent: Json,
  key: string,
  parentPath: string,
  options?: ReadOptions,
): Json | undefined;
export function readObject(
  parent: Json,
  key: string,
  parentPath: string,
  options: ReadOptions = {},
): Json | undefined {
  const path = childPath(parentPath, key);
  const value = parent[key];
  if (value === undefined || value === null) {
    if (options.required) throw missing(path, options.missingCode);
    return undefined;
  }
  if (!isJsonObject(value)) throw invalidParameter(`Param ${path} must be a JSON object.`);
  return value;
}

interface StringOptions extends ReadOptions {
  max?: number;
  /** Code for an over-long value: 100 for free text, 131009 for ids and button titles. */
  maxCode?: 100 | 131009;
}

export function readString(
  parent: Json,
  key: string,
  parentPath: string,
  options: StringOptions & { required: true },
): string;
export function readString(
  parent: Json,
  key: string,
  parentPath: string,
  options?: StringOptions,
): string | undefined;
export function readString(
  parent: Json,
  key: string,
  parentPath: string,
  options: StringOptions = {},
): string | undefined {
  const path = childPath(parentPath, key);
  const value = parent[key];
  if (value === undefined || value === null) {
    if (options.required) throw missing(path, options.missingCode);
    return undefined;
  }
  if (typeof value !== 'string') throw invalidParameter(`Param ${path} must be a string.`);
  if (options.required && value.trim() === '') throw missing(path, options.missingCode);
  if (options.max !== undefined && characterCount(value) > options.max) {
    throw new GraphError(options.maxCode ?? 100, {
      details: `Param ${path} must be at most ${options.max} characters long.`,
    });
  }
  return value;
}

export function readArray(
  parent: Json,
  key: string,
  parentPath: string,
  options: ReadOptions = {},
): unknown[] | undefined {
  const path = childPath(parentPath, key);
  const value = parent[key];
  if (value === undefined || value === null) {
    if (options.required) throw missing(path, options.missingCode);
    return undefined;
  }
  if (!Array.isArray(value)) throw invalidParameter(`Param ${path} must be an array.`);
  return value;
}

/** Graph's enum wording: `Param type must be one of {AUDIO, TEXT} - got "foo".` */
export function readEnum<T extends string>(
  parent: Json,
  key: string,
  parentPath: string,
  allowed: readonly T[],
  options: ReadOptions = {},
): T | undefined {
  const value = readString(parent, key, parentPath, options);
  if (value === undefined) return undefined;
  const match = allowed.find((candidate) => candidate.toLowerCase() === value.toLowerCase());
  if (match === undefined) {
    const list = allowed.map((candidate) => candidate.toUpperCase()).join(', ');
    throw invalidParameter(
      `Param ${childPath(parentPath, key)} must be one of {${list}} - got "${value}".`,
    );
  }
  return match;
}
