// Starts every service as its own OS process, wired together by URL, as `npm start` does and as the
// end-to-end tests do. Plain JavaScript so that it runs before (and without) a TypeScript build.
const { spawn } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');
const { createRestartPolicy } = require('./restart-policy');

const ROOT = path.resolve(__dirname, '..');

/**
 * Start order: the provider simulator (the outside world) first, then the owners, the gateway
 * last, so it never proxies to a service still booting.
 */
const SERVICES = [
  'provider-simulator',
  'messaging',
  'contacts',
  'campaigns',
  'webhooks',
  'inbound',
  'gateway',
];
const PORT_OFFSETS = {
  gateway: 0,
  messaging: 1,
  contacts: 2,
  campaigns: 3,
  webhooks: 4,
  inbound: 5,
  'provider-simulator': 10,
};
/** How many consecutive ports from the base a system occupies (tests reserve this many). */
const PORT_SPAN = Math.max(...Object.values(PORT_OFFSETS)) + 1;
const MAIN_FILES = Object.fromEntries(
  SERVICES.map((name) => [
    name,
    name === 'provider-simulator'
      ? path.join(ROOT, 'packages', name, 'dist', 'main.js')
      : path.join(ROOT, 'services', name, 'dist', 'main.js'),
  ]),
);

function portsFrom(basePort) {
  return Object.fromEntries(SERVICES.map((name) => [name, basePort + PORT_OFFSETS[name]]));
}

function wiringEnv(ports, host) {
  const url = (name) => `http://${host}:${ports[name]}`;
  return {
    GATEWAY_URL: url('gateway'),
    MESSAGING_URL: url('messaging'),
    CONTACTS_URL: url('contacts'),
    CAMPAIGNS_URL: url('campaigns'),
    WEBHOOKS_URL: url('webhooks'),
    INBOUND_URL: url('inbound'),
    PUBLIC_BASE_URL: url('gateway'),
    // New channels point at the simulator and are registered with it, unless told otherwise.
    PROVIDER_BASE_URL: url('provider-simulator'),
    PROVIDER_SIMULATOR_URL: url('provider-simulator'),
  };
}

function isRunning(child) {
  return child !== undefined && child.exitCode === null && child.signalCode === null;
}

async function waitUntilReady(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isRunning(child)) {
      throw new Error(`exited (${child.signalCode ?? `exit code ${child.exitCode}`})`);
    }
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`not ready after ${timeoutMs} ms`);
}

/** A line in the shape of the services' own (pino) lines, so that every reader of the output reads it. */
function supervisorLine(level, msg, fields) {
  return JSON.stringify({
    level,
    time: new Date().toISOString(),
    msg,
    supervisor: true,
    ...fields,
  });
}

const LEVEL = { info: 30, warn: 40, error: 50, fatal: 60 };

/**
 * @param {object} options
 * @param {Record<string,string>} options.env   variables for every service (secrets, database, broker)
 * @param {number} [options.basePort]          gateway port; the others follow it (+1 … +5, simulator +10)
 * @param {(service: string, line: string) => void} [options.onLine]  every output line of every process
 * @param {number} [options.readyTimeoutMs]
 * @param {boolean | object} [options.supervise]  restart a process that exits unasked (`npm start`);
 *   an object sets the restart policy (see restart-policy.js). Off by default: tests kill and start
 *   processes themselves.
 * @param {string[]} [options.only]  the processes to start (default: all); a second replica of the
 *   services beside a first system leaves the provider simulator out.
 * @param {Record<string, number>} [options.replicas]  processes per service (default 1): the extra
 *   ones listen on the ports after the system's span and share its queues and database; the
 *   gateway and the other services call the first. Not supervised; stopped with the system.
 */
async function launchSystem({
  env,
  basePort = 8080,
  onLine = () => {},
  readyTimeoutMs = 60_000,
  supervise = false,
  only = SERVICES,
  replicas = {},
}) {
  const host = env.HOST || '127.0.0.1';
  const ports = portsFrom(basePort);
  const urls = Object.fromEntries(SERVICES.map((name) => [name, `http://${host}:${ports[name]}`]));
  const policyOptions = typeof supervise === 'object' ? supervise : {};
  /** Per process: its child, whether it should be running, its restart policy and pending restart. */
  const processes = new Map(
    SERVICES.map((name) => [
      name,
      { child: undefined, wanted: false, startedAt: 0, policy: undefined, restartTimer: undefined },
    ]),
  );
  let stopping = false;
  const report = (name, level, msg, fields = {}) =>
    onLine(name, supervisorLine(LEVEL[level], msg, fields));

  /** One process of a service listening on `port`, each line it prints passed to `onLine`. */
  function spawnProcess(name, port) {
    const child = spawn(process.execPath, [MAIN_FILES[name]], {
      cwd: ROOT,
      env: {
        // A restart after a crash boots in the time the gateway answers 503: Node's on-disk
        // compile cache takes a fifth off loading the modules (Node 22.1 and later).
        NODE_COMPILE_CACHE: path.join(ROOT, '.data', 'node-compile-cache'),
        ...process.env,
        ...wiringEnv(ports, host),
        ...env,
        PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => onLine(name, line));
    }
    return child;
  }

  function spawnOne(name) {
    const entry = processes.get(name);
    const child = spawnProcess(name, ports[name]);
    entry.child = child;
    entry.startedAt = Date.now();
    // 'close', not 'exit': the process's last lines (its fatal error) are printed before the report.
    child.once('close', (code, signal) => onExit(name, child, code, signal));
    return child;
  }

  /** A process that exits unasked, under supervision: log it, then restart it or give up on it. */
  function onExit(name, child, code, signal) {
    const entry = processes.get(name);
    if (entry.child !== child) return;
    entry.child = undefined;
    if (!supervise || !entry.wanted || stopping) return;
    const how = signal ? `signal ${signal}` : `exit code ${code}`;
    const decision = entry.policy.onExit({ startedAt: entry.startedAt, exitedAt: Date.now() });
    const fields = { event: 'exited', exit_code: code, signal, crashes: decision.crashes };
    if (!decision.restart) {
      entry.wanted = false;
      report(
        name,
        'fatal',
        `exited (${how}) and is not restarted again: ${decision.reason}; the other processes keep running`,
        { ...fields, event: 'gave_up', reason: decision.reason },
      );
      return;
    }
    report(name, 'error', `exited (${how}); restarting in ${decision.delayMs} ms`, {
      ...fields,
      restart_in_ms: decision.delayMs,
    });
    entry.restartTimer = setTimeout(() => {
      entry.restartTimer = undefined;
      if (stopping || !entry.wanted) return;
      restartOne(name);
    }, decision.delayMs);
  }

  function restartOne(name) {
    const child = spawnOne(name);
    const started = Date.now();
    waitUntilReady(urls[name], child, readyTimeoutMs).then(
      () => {
        if (processes.get(name).child !== child) return;
        const readyAfterMs = Date.now() - started;
        report(name, 'info', `restarted (pid ${child.pid}), ready after ${readyAfterMs} ms`, {
          event: 'restarted',
          pid: child.pid,
          ready_after_ms: readyAfterMs,
        });
      },
      (error) => {
        // Exited while starting: the exit is reported (and the next restart decided) by onExit.
        if (!isRunning(child)) return;
        report(name, 'warn', `restarted (pid ${child.pid}) but ${error.message}`, {
          event: 'not_ready',
          pid: child.pid,
        });
      },
    );
  }

  /** Starts a process and waits until it is ready; under supervision it is restarted from then on. */
  async function startOne(name) {
    const entry = processes.get(name);
    clearTimeout(entry.restartTimer);
    entry.restartTimer = undefined;
    entry.policy = createRestartPolicy(policyOptions);
    const child = isRunning(entry.child) ? entry.child : spawnOne(name);
    try {
      await waitUntilReady(urls[name], child, readyTimeoutMs);
      entry.wanted = true;
    } catch (error) {
      throw new Error(`${name} did not start: ${error.message}`);
    }
  }

  /** SIGTERM (graceful shutdown), then SIGKILL after `timeoutMs`; `signal` 'SIGKILL' kills at once. */
  function stopOne(name, timeoutMs = 15_000, signal = 'SIGTERM') {
    const entry = processes.get(name);
    // Asked for: never restarted.
    entry.wanted = false;
    clearTimeout(entry.restartTimer);
    entry.restartTimer = undefined;
    const child = entry.child;
    if (!isRunning(child)) return Promise.resolve();
    return new Promise((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill(signal);
    });
  }

  /** Extra processes of a service beside the first (the `replicas` option). */
  const extra = [];
  async function startReplicas() {
    let port = basePort + PORT_SPAN;
    for (const name of SERVICES) {
      for (let n = 1; n < (replicas[name] ?? 1); n++) {
        const replicaPort = port++;
        const child = spawnProcess(name, replicaPort);
        extra.push({ name, child, url: `http://${host}:${replicaPort}` });
        await waitUntilReady(`http://${host}:${replicaPort}`, child, readyTimeoutMs).catch(
          (error) => {
            throw new Error(`${name} replica ${n + 1} did not start: ${error.message}`);
          },
        );
      }
    }
  }

  function stopReplicas(timeoutMs = 15_000) {
    return Promise.all(
      extra.map(
        ({ child }) =>
          new Promise((resolve) => {
            if (!isRunning(child)) return resolve();
            const kill = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
            child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
  }

  async function stop() {
    stopping = true;
    // The gateway first, so no new request reaches a service that is going away.
    await stopOne('gateway');
    await Promise.all([...SERVICES.map((name) => stopOne(name)), stopReplicas()]);
  }

  try {
    for (const name of SERVICES.filter((service) => only.includes(service))) await startOne(name);
    await startReplicas();
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    urls,
    ports,
    startService: startOne,
    stopService: (name, timeoutMs) => stopOne(name, timeoutMs),
    killService: (name) => stopOne(name, 0, 'SIGKILL'),
    pidOf: (name) => {
      const child = processes.get(name).child;
      return isRunning(child) ? child.pid : undefined;
    },
    /** The extra processes of the `replicas` option: name, pid and base URL of each. */
    replicas: () =>
      extra
        .filter(({ child }) => isRunning(child))
        .map(({ name, child, url }) => ({ name, pid: child.pid, url })),
    stop,
  };
}

module.exports = { launchSystem, SERVICES, PORT_SPAN, portsFrom };
