import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePortBlock } from './test-infra';

const run = promisify(execFile);
const INFRA = path.join(__dirname, '../../scripts/infra.sh');

/** A docdb of a test's own on PostgreSQL, started by the project's infra script. */
export interface OwnDocdb {
  port: number;
  url: string;
  /** The environment the infra script ran with (its `psql` subcommand reaches the same database). */
  env: NodeJS.ProcessEnv;
  /** `scripts/infra.sh <args>` against this docdb. */
  infra(args: string[]): Promise<{ stdout: string }>;
  /** Stops it (the PostgreSQL cluster keeps the database for the next run on that port). */
  down(): Promise<void>;
}

/**
 * Starts a docdb on a free port of `[from, from + 10)`: a small fixed range per test file, since
 * each port keeps a PostgreSQL database and runs should reuse a few. RabbitMQ is not touched.
 */
export async function startOwnDocdb(from: number): Promise<OwnDocdb> {
  const port = await freePortBlock(1, { from, count: 10 });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DOCDB_PORT: String(port),
    DOCDB_BACKEND: 'postgresql',
    AMQP_URL: process.env.AMQP_URL ?? 'amqp://127.0.0.1:5672',
  };
  delete env.MONGODB_URL;
  const infra = (args: string[]) => run('bash', [INFRA, ...args], { env });
  await infra(['up']);
  return {
    port,
    url: `mongodb://127.0.0.1:${port}`,
    env,
    infra,
    down: () => infra(['down']).then(() => undefined),
  };
}
