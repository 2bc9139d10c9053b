// Starts every service as its own OS process, wired together by URL, as `npm start` does and as the
// end-to-end tests do. Plain JavaScript so that it runs before (and without) a TypeScript build.
const { spawn } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');

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

async function waitUntilReady(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
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

/**
 * @param {object} options
 * @param {Record<string,string>} options.env   variables for every service (secrets, database, broker)
 * @param {number} [options.basePort]          gateway port; the others follow it (+1 … +5, simulator +10)
 * @param {(service: string, line: string) => void} [options.onLine]  every output line of every process
 * @param {number} [options.readyTimeoutMs]
 */
async function launchSystem({ env, basePort = 8080, onLine = () => {}, readyTimeoutMs = 60_000 }) {
  const host = env.HOST || '127.0.0.1';
  const ports = portsFrom(basePort);
  const urls = Object.fromEntries(SERVICES.map((name) => [name, `http://${host}:${ports[name]}`]));
  const children = new Map();

  async function startOne(name) {
    const child = spawn(process.execPath, [MAIN_FILES[name]], {
      cwd: ROOT,
      env: { ...process.env, ...wiringEnv(ports, host), ...env, PORT: String(ports[name]) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.set(name, child);
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => onLine(name, line));
    }
    try {
      await waitUntilReady(urls[name], child, readyTimeoutMs);
    } catch (error) {
      throw new Error(`${name} did not start: ${error.message}`);
    }
  }

  /** SIGTERM (graceful shutdown), then SIGKILL after `timeoutMs`; `signal` 'SIGKILL' kills at once. */
  function stopOne(name, timeoutMs = 15_000, signal = 'SIGTERM') {
    const child = children.get(name);
    children.delete(name);
    if (!child || child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill(signal);
    });
  }

  async function stop() {
    // The gateway first, so no new request reaches a service that is going away.
    await stopOne('gateway');
    await Promise.all([...children.keys()].map((name) => stopOne(name)));
  }

  try {
    for (const name of SERVICES) await startOne(name);
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
    stop,
  };
}

module.exports = { launchSystem, SERVICES, PORT_SPAN, portsFrom };
