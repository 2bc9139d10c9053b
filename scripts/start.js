// `npm start`: every service as its own process on one machine, a demo organization, Ctrl-C to stop.
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { launchSystem } = require('./launcher');

const DATA_DIR = path.resolve(__dirname, '..', '.data');
const SECRETS_FILE = path.join(DATA_DIR, 'secrets.json');
const DEMO_FILE = path.join(DATA_DIR, 'demo-organization.json');

const COLORS = [36, 32, 33, 35, 34, 96];
const LEVELS = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function writePrivateJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n', { mode: 0o600 });
}

/** Secrets are generated once and kept under .data/, unless given in the environment. */
function localSecrets() {
  const saved = readJson(SECRETS_FILE) ?? {};
  const secrets = {
    ADMIN_API_TOKEN:
      process.env.ADMIN_API_TOKEN ?? saved.ADMIN_API_TOKEN ?? randomBytes(24).toString('hex'),
    INTERNAL_API_SECRET:
      process.env.INTERNAL_API_SECRET ??
      saved.INTERNAL_API_SECRET ??
      randomBytes(24).toString('hex'),
  };
  writePrivateJson(SECRETS_FILE, { ...saved, ...secrets });
  return secrets;
}

function printer() {
  const width = 10;
  const names = new Map();
  return (service, line) => {
    if (!names.has(service)) names.set(service, COLORS[names.size % COLORS.length]);
    const prefix = `\x1b[${names.get(service)}m${service.padEnd(width)}|\x1b[0m`;
    let text = line;
    try {
      const parsed = JSON.parse(line);
      const { level, msg, time, service: _s, pid: _p, hostname: _h, supervisor, ...rest } = parsed;
      const extra = Object.entries(rest)
        .map(
          ([key, value]) => `${key}=${typeof value === 'object' ? JSON.stringify(value) : value}`,
        )
        .join(' ');
      const source = supervisor ? '[launcher] ' : '';
      text = `${(time ?? '').slice(11, 23)} ${LEVELS[level] ?? level} ${source}${msg ?? ''} ${extra}`;
    } catch {
      // not a JSON log line: print as is
    }
    process.stdout.write(`${prefix} ${text}\n`);
  };
}

const DEMO_OWNER_EMAIL = 'owner@demo.example';

async function ensureDemoOrganization(gatewayUrl, adminToken) {
  const saved = readJson(DEMO_FILE);
  if (saved?.token) {
    const me = await fetch(`${gatewayUrl}/api/svc/me?token=${encodeURIComponent(saved.token)}`);
    if (me.ok) return saved;
  }
  const ownerPassword = randomBytes(12).toString('base64url');
  const create = (extra) =>
    fetch(`${gatewayUrl}/admin/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Demo Company', plan: 'standard', ...extra }),
    });
  // Its owner signs in to the console with this password (kept in the demo file only). An
  // earlier demo organization may still hold that email (its token was revoked in the
  // console): then the new one is made without an owner.
  let response = await create({ owner_email: DEMO_OWNER_EMAIL, owner_password: ownerPassword });
  const withOwner = response.ok;
  if (!withOwner) response = await create({});
  const body = await response.json();
  if (!response.ok)
    throw new Error(`creating the demo organization failed: ${JSON.stringify(body)}`);
  const demo = {
    ...body.organization,
    token: body.token,
    token_id: body.token_id,
    ...(withOwner ? { owner_email: DEMO_OWNER_EMAIL, owner_password: ownerPassword } : {}),
  };
  writePrivateJson(DEMO_FILE, demo);
  return demo;
}

async function main() {
  const secrets = localSecrets();
  const basePort = Number(process.env.PORT ?? 8080);
  const system = await launchSystem({
    env: {
      ...secrets,
      NODE_ENV: process.env.NODE_ENV ?? 'development',
      // Private and loopback URLs stay refused unless ALLOW_PRIVATE_URLS=true is set (README).
    },
    basePort,
    onLine: printer(),
    // A process that exits unasked is logged and restarted; one that keeps exiting is given up on.
    supervise: true,
  });
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\nStopping every service…\n');
    await system.stop();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);

  const demo = await ensureDemoOrganization(system.urls.gateway, secrets.ADMIN_API_TOKEN);
  process.stdout.write(
    [
      '',
      `Switchboard is running at ${system.urls.gateway}`,
      `  demo organization: ${demo.name} (company_id ${demo.company_id}, plan ${demo.plan})`,
      `  demo API token:    ${demo.token}`,
      `  admin token:       ${secrets.ADMIN_API_TOKEN}`,
      `  try: curl "${system.urls.gateway}/api/svc/me?token=${demo.token}"`,
      `  web console:       ${system.urls.gateway}/console/`,
      ...(demo.owner_email
        ? [`  console sign-in:   ${demo.owner_email} / ${demo.owner_password}`]
        : []),
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

main().catch((error) => {
  process.stderr.write(`npm start failed: ${error.stack ?? error}\n`);
  process.exit(1);
});
