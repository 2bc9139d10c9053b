// The local infrastructure listens on loopback only: RabbitMQ's AMQP port,
// its Erlang distribution port, its management API and epmd listen on every interface unless
// scripts/infra.sh says otherwise, and docdb and PostgreSQL must not listen beyond loopback either.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { MONGODB_URL, freePortBlock, portIsFree } from '../support/test-infra';

const ROOT = path.resolve(__dirname, '../..');
const DATA = path.join(ROOT, '.data');
const run = promisify(execFile);

interface Listener {
  address: string;
  port: number;
  inode: string;
}

/** /proc/net/tcp's hex address: IPv4 as one little-endian word, IPv6 as four. */
function decodeAddress(hex: string): string {
  const words = hex.match(/.{8}/g)!.map((word) => word.match(/../g)!.reverse().join(''));
  if (words.length === 1) {
    return words[0]!
      .match(/../g)!
      .map((byte) => parseInt(byte, 16))
      .join('.');
  }
  const groups = words.join('').match(/.{4}/g)!;
  if (groups.slice(0, 5).every((g) => g === '0000') && groups[5] === 'ffff') {
    return `::ffff:${decodeAddress(words[3]!.match(/../g)!.reverse().join(''))}`;
  }
  return groups.map((g) => parseInt(g, 16).toString(16)).join(':');
}

/** Every listening TCP socket of the machine (IPv4 and IPv6). */
function listeners(): Listener[] {
  const result: Listener[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] !== '0A') continue; // LISTEN
      const [hex, port] = fields[1]!.split(':');
      result.push({ address: decodeAddress(hex!), port: parseInt(port!, 16), inode: fields[9]! });
    }
  }
  return result;
}

const isLoopback = (address: string) =>
  address.startsWith('127.') || address === '0:0:0:0:0:0:0:1' || address.startsWith('::ffff:127.');

const describeAddresses = (found: Listener[]) =>
  found.map(({ address, port }) => `${address}:${port}`).sort();

/** The addresses listening on a port, e.g. ['127.0.0.1:5672']. */
const listeningOn = (port: number) => describeAddresses(listeners().filter((l) => l.port === port));

/** The addresses a process listens on (its sockets matched by inode). */
function listeningOf(pid: number): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const target = (() => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return '';
      }
    })();
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) inodes.add(inode);
  }
  return describeAddresses(listeners().filter((l) => inodes.has(l.inode)));
}

const wide = (addresses: string[]) =>
  addresses.filter((a) => !isLoopback(a.slice(0, a.lastIndexOf(':'))));

// Where infra.sh can start RabbitMQ at all: installed (a MONGODB_URL/AMQP_URL machine may not
// have it), and as root or with sudo that asks no password, as infra.sh uses it.
const canStartRabbitMQ = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v rabbitmq-server && command -v epmd'], {
      stdio: 'ignore',
    });
    if (process.getuid?.() !== 0) execFileSync('sudo', ['-n', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

// A node of its own (own name, ports and epmd, as on a machine where nothing Erlang runs yet),
// started and stopped through infra.sh, leaves the shared infrastructure alone.
/** AMQP ports whose + 10000 and + 20000 stay below the ephemeral range too. */
const NODE_PORTS = { from: 10_000, count: 2_700 };
const EPMD_PORTS = { from: 13_000, count: 2_000 };

(canStartRabbitMQ ? describe : describe.skip)('infra.sh starting RabbitMQ', () => {
  let amqpPort: number;
  let epmdPort: number;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // The distribution port is the AMQP port + 20000 (RabbitMQ's default), the management API's
    // the AMQP port + 10000. All of the node's ports are taken below the kernel's ephemeral range
    // (32768 and up), where no client socket of another test can hold them: a distribution port
    // at AMQP + 20000 up there was once taken by one, and the node died at start
    // (`dist_port_already_used`) without a line in its log.
    do amqpPort = await freePortBlock(1, NODE_PORTS);
    while (!(await portIsFree(amqpPort + 20_000)) || !(await portIsFree(amqpPort + 10_000)));
    epmdPort = await freePortBlock(1, EPMD_PORTS);
    env = {
      ...process.env,
      AMQP_URL: '',
      MONGODB_URL, // docdb is not touched
      AMQP_PORT: String(amqpPort),
      ERL_EPMD_PORT: String(epmdPort),
      RABBITMQ_NODENAME: 'rabbit_listeners_test@localhost',
    };
    delete env.AMQP_URL;
    await run('bash', [path.join(ROOT, 'scripts/infra.sh'), 'up'], { env });
  }, 240_000); // a node's first start expands its plugins (management): slow on a loaded machine

  afterAll(async () => {
    await run('bash', [path.join(ROOT, 'scripts/infra.sh'), 'down'], { env }).catch(() => {});
    // The node's own epmd: nothing else uses its port.
    await run('epmd', ['-kill'], {
      env: { ...process.env, ERL_EPMD_PORT: String(epmdPort) },
    }).catch(() => {});
  }, 90_000);

  test('when it starts a node, then AMQP, the distribution port, the management API and epmd listen on loopback only', () => {
    for (const port of [amqpPort, amqpPort + 20_000, amqpPort + 10_000, epmdPort]) {
      const addresses = listeningOn(port);
      expect({ port, listening: addresses.length > 0 }).toEqual({ port, listening: true });
      expect({ port, beyondLoopback: wide(addresses) }).toEqual({ port, beyondLoopback: [] });
    }
  });
});

/** Pid from a pid file of infra.sh (or PostgreSQL's postmaster.pid), when that process runs. */
function runningPid(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  const pid = parseInt(readFileSync(file, 'utf8'), 10);
  return Number.isInteger(pid) && existsSync(`/proc/${pid}/fd`) ? pid : undefined;
}

// What this checkout's infra.sh started (npm start, or npm test in CI from a fresh start);
// servers started otherwise (MONGODB_URL/AMQP_URL, another checkout) are not its to narrow.
describe('the infrastructure this checkout started', () => {
  const started = [
    { name: 'docdb', pid: runningPid(path.join(DATA, 'docdb.pid')) },
    { name: 'postgresql', pid: runningPid(path.join(DATA, 'postgresql/data/postmaster.pid')) },
    { name: 'rabbitmq', pid: runningPid(path.join(DATA, 'rabbitmq.pid')) },
  ].filter((p): p is { name: string; pid: number } => p.pid !== undefined);

  test('when it runs, then none of its servers, nor epmd, listens beyond loopback', () => {
    const found = started.map(({ name, pid }) => ({
      name,
      beyondLoopback: wide(listeningOf(pid)),
    }));
    expect(found).toEqual(started.map(({ name }) => ({ name, beyondLoopback: [] })));
    if (started.some(({ name }) => name === 'rabbitmq')) {
      expect(wide(listeningOn(Number(process.env.ERL_EPMD_PORT ?? 4369)))).toEqual([]);
    }
  });
});
