import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './repo';

export const COMPOSE_FILE = path.join(ROOT, 'docker-compose.yml');

export interface ComposeService {
  image?: string;
  build?: string | { context: string };
  command?: string[];
  environment?: Record<string, string | number | boolean | null>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
  read_only?: boolean;
  [key: string]: unknown;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The compose file as docker compose reads it: YAML merge keys (`<<: *anchor`) applied. */
export function readComposeFile(): ComposeFile {
  return parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as ComposeFile;
}

/**
 * Compose's variable interpolation with nothing set in the environment or `.env` — what a plain
 * `docker compose up` on a fresh checkout sees: `${X:-default}` and `${X-default}` give the
 * default, `$$` a dollar; a variable without a default is an error here, not an empty string.
 */
export function interpolate(value: string): string {
  return value.replace(
    /\$\$|\$\{([A-Z_][A-Z0-9_]*)(?:(:?-)([^}]*)|(:?\?)([^}]*))?\}|\$([A-Z_][A-Z0-9_]*)/gi,
    (whole, name?: string, _dash?: string, fallback?: string, question?: string) => {
      if (whole === '$$') return '$';
      if (fallback !== undefined) return fallback;
      if (question !== undefined) throw new Error(`${whole} must be set by whoever runs compose`);
      throw new Error(`${whole} has no default: it would be empty`);
    },
  );
}

/** Every string in `value` interpolated, as docker compose does before it validates the file. */
export function interpolateAll<T>(value: T): T {
  if (typeof value === 'string') return interpolate(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => interpolateAll(item)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolateAll(item)]),
    ) as T;
  }
  return value;
}

/** A service's environment after interpolation, every value a string as the process sees it. */
export function environmentOf(service: ComposeService): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service.environment ?? {})
      .filter(([, value]) => value !== null)
      .map(([key, value]) => [key, interpolate(String(value))]),
  );
}
