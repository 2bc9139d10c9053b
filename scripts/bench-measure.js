// What a benchmark measures besides latency: CPU per process from /proc over a window, and the
// database commands each service counted (DB_COMMAND_STATS=1), both turned into figures per send.
// Linux only (/proc); elsewhere the CPU lines say they are unavailable.
const fs = require('node:fs');

/** Clock ticks per second of /proc/<pid>/stat's utime and stime: 100 on every Linux we run. */
const TICKS_PER_SECOND = 100;

/** The processes of the shared infrastructure, by their /proc comm: database, its PostgreSQL, broker. */
const INFRA_GROUPS = { docdb: 'docdb (FerretDB)', postgres: 'PostgreSQL', 'beam.smp': 'RabbitMQ' };

/**
 * One /proc/<pid>/stat line: the command name and CPU milliseconds (user + system). The name sits
 * in parentheses and may itself hold spaces and parentheses, so the fields are counted from the
 * last `)`: state is field 3, utime 14, stime 15.
 */
function parseProcStat(text) {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const fields = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return { comm: text.slice(open + 1, close), cpuMs: ((utime + stime) * 1000) / TICKS_PER_SECOND };
}

function readStat(pid) {
  try {
    const stat = parseProcStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    if (stat && (stat.comm === 'docdb' || stat.comm === 'postgres')) {
      stat.foreign = servesAnotherDocdb(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    }
    if (stat && stat.comm === 'beam.smp') {
      stat.foreign = isAnotherRabbitNode(fs.readFileSync(`/proc/${pid}/environ`, 'utf8'));
    }
    return stat;
  } catch {
    return undefined; // gone, or not Linux
  }
}

/** The port of the docdb this run uses (MONGODB_URL), whose database is `docdb_<port>`. */
const OUR_DOCDB_PORT = /:(\d+)/.exec(process.env.MONGODB_URL ?? ':27017')?.[1] ?? '27017';

/** The port of the RabbitMQ node this run uses (AMQP_URL). */
const OUR_AMQP_PORT = /:(\d+)/.exec(process.env.AMQP_URL ?? ':5672')?.[1] ?? '5672';

/** A RabbitMQ node started for another port (another user's node on a shared machine). */
function isAnotherRabbitNode(environ) {
  const port = /(?:^|\0)RABBITMQ_NODE_PORT=(\d+)/.exec(environ);
  return port ? port[1] !== OUR_AMQP_PORT : false;
}

/**
 * A docdb listening on another port, or a PostgreSQL backend serving another docdb's database:
 * another user's server on a shared machine, counted in `other` rather than in the run's rows.
 */
function servesAnotherDocdb(cmdline) {
  const args = cmdline.split('\0').join(' ');
  const listen = /-listen\s+\S*:(\d+)/.exec(args);
  if (listen) return listen[1] !== OUR_DOCDB_PORT;
  const database = /^postgres: \S+ (docdb_\d+) /.exec(args);
  return database ? database[1] !== `docdb_${OUR_DOCDB_PORT}` : false;
}

/** Every process's CPU now: `Map<pid, {comm, cpuMs}>` (empty where there is no /proc). */
function snapshotCpu() {
  const snapshot = new Map();
  let entries = [];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return snapshot;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat) snapshot.set(Number(entry), stat);
  }
  return snapshot;
}

/**
 * CPU ms spent between two snapshots, per group. `named` maps pids to group names (our services,
 * the simulator, the benchmark itself); the rest go to their infrastructure group by comm, or to
 * `other`. A process that started inside the window counts whole; one that ended inside it is
 * lost (a PostgreSQL backend closed mid-run), which only undercounts.
 */
function cpuBetween(before, after, named) {
  const groups = new Map();
  const others = [];
  for (const [pid, { comm, cpuMs }] of after) {
    const spent = cpuMs - (before.get(pid)?.comm === comm ? before.get(pid).cpuMs : 0);
    if (spent <= 0) continue;
    const infra = after.get(pid).foreign ? undefined : INFRA_GROUPS[comm];
    const group = named.get(pid) ?? infra ?? 'other';
    groups.set(group, (groups.get(group) ?? 0) + spent);
    if (group === 'other') others.push({ pid, comm, cpuMs: spent });
  }
  others.sort((a, b) => b.cpuMs - a.cpuMs);
  return { groups, others };
}

/**
 * The `cpu per send` figures: `ours` is the sum over `ourGroups`, `total` adds the
 * infrastructure (database, PostgreSQL, broker); the simulator, the benchmark and other processes
 * are reported beside them, not in them.
 */
function cpuPerSend(groups, ourGroups, sends) {
  const per = (ms) => (sends > 0 ? ms / sends : NaN);
  const sum = (names) => names.reduce((total, name) => total + (groups.get(name) ?? 0), 0);
  const ours = sum(ourGroups);
  const total = ours + sum(Object.values(INFRA_GROUPS));
  const byProcess = [...groups]
    .map(([name, ms]) => ({ process: name, 'cpu ms': Math.round(ms), 'ms per send': per(ms) }))
    .sort((a, b) => b['cpu ms'] - a['cpu ms']);
  return { total: per(total), ours: per(ours), byProcess };
}

function cpuLine({ total, ours }) {
  return `cpu per send: ${total.toFixed(1)} ms total, ${ours.toFixed(1)} ms in our services`;
}

/**
 * The samples of one Prometheus counter by one label (or several, their values joined by a
 * space), summed over its other labels:
 * `counterByLabel(text, 'switchboard_db_commands_total', 'command')` → `Map{find → 12, …}`,
 * `counterByLabel(text, 'switchboard_db_commands_total', ['command', 'collection'])` →
 * `Map{'find messages' → 9, …}`.
 */
function counterByLabel(text, metric, label) {
  const values = new Map();
  const patterns = (Array.isArray(label) ? label : [label]).map(
    (name) => new RegExp(`(?:^|,)${name}="((?:[^"\\\\]|\\\\.)*)"`),
  );
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`) && !line.startsWith(`${metric} `)) continue;
    const close = line.lastIndexOf('}');
    const labels = close > 0 ? line.slice(metric.length + 1, close) : '';
    const value = Number(
      line
        .slice(close > 0 ? close + 1 : metric.length)
        .trim()
        .split(' ')[0],
    );
    const key = patterns.map((pattern) => pattern.exec(labels)?.[1] ?? '').join(' ');
    if (Number.isFinite(value)) values.set(key, (values.get(key) ?? 0) + value);
  }
  return values;
}

/** What each key grew by from `before` to `after` (maps of counts). */
function growth(before, after) {
  const grown = new Map();
  for (const [key, value] of after) {
    const delta = value - (before.get(key) ?? 0);
    if (delta > 0) grown.set(key, delta);
  }
  return grown;
}

module.exports = {
  INFRA_GROUPS,
  parseProcStat,
  snapshotCpu,
  cpuBetween,
  cpuPerSend,
  cpuLine,
  counterByLabel,
  growth,
};
