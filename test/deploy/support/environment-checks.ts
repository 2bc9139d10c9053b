import type { ServiceConfigFacts } from './repo';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * What is wrong with the environment a deployment gives one service, as problem sentences (an
 * empty list when nothing is): a required variable missing, a value its config schema refuses,
 * a listen address other than every interface, or — after the schema's defaults — an address on
 * the container's own loopback, where no other process of the system runs.
 */
export function environmentProblems(
  facts: ServiceConfigFacts,
  environment: Record<string, string>,
  options: { port: number; unknownValues?: Set<string> },
): string[] {
  const problems = facts.required
    .filter((key) => environment[key] === undefined)
    .map((key) => `${facts.name}: required ${key} is not provided`);
  const parsed = facts.schema.safeParse(environment);
  if (!parsed.success) {
    return [
      ...problems,
      ...parsed.error.issues.map(
        (issue) => `${facts.name}: ${issue.path.join('.')} is refused: ${issue.message}`,
      ),
    ];
  }
  const config = parsed.data;
  if (config.HOST !== '0.0.0.0') problems.push(`${facts.name}: HOST is ${String(config.HOST)}`);
  if (config.PORT !== options.port) {
    problems.push(
      `${facts.name}: PORT is ${String(config.PORT)}, the container port ${options.port}`,
    );
  }
  for (const [key, value] of Object.entries(config)) {
    if (typeof value !== 'string' || options.unknownValues?.has(key)) continue;
    if (key === 'AMQP_URL' && !facts.usesBroker) continue;
    const host = hostOf(value);
    if (host && LOOPBACK_HOSTS.has(host)) {
      problems.push(`${facts.name}: ${key} points at the container itself (${value})`);
    }
  }
  return problems;
}

export function hostOf(value: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return undefined;
  try {
    return new URL(value).hostname;
  } catch {
    return undefined;
  }
}

/** `http://messaging:8081` → `{ host: 'messaging', port: 8081 }` (the scheme's port when none). */
export function addressOf(value: string): { host: string; port: number } {
  const url = new URL(value);
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { host: url.hostname, port };
}
