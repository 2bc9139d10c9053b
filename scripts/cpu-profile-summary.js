// Summarizes Node's --cpu-prof output: where a process spent its CPU, by self time per function
// and per module (a node_modules package, one of our packages or services, or Node itself), and
// per module that asked for the work (a socket write charged to the driver that wrote).
//
//   node scripts/cpu-profile-summary.js <file.cpuprofile>... [--top N] [--window <window.json>]
//
// With --window (the send benchmark writes window.json beside the profiles: its measured window
// on the profiles' monotonic clock, and the sends in it), only the samples taken in that window
// count, and each figure is also given as ms per send.
//
// The benchmarks write such files with CPU_PROF_DIR (see services/messaging/bench). Idle and
// garbage collection are the profiler's own pseudo-frames and shown as such.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');

/** Which module a script URL belongs to: `mongoose`, `services/messaging`, `node:internal`, … */
function moduleOf(url) {
  if (!url) return '(native/V8)';
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const file = url.replace(/^file:\/\//, '');
  const packages = file.lastIndexOf('node_modules/');
  if (packages >= 0) {
    const [scope, name] = file.slice(packages + 'node_modules/'.length).split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  const relative = path.relative(ROOT, file).split(path.sep);
  return relative.length >= 2 ? `${relative[0]}/${relative[1]}` : file;
}

/** Self time in ms per function and per module, from one profile's samples. */
function summarize(profile, window) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map();
  const intervals = profile.timeDeltas;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += intervals[i];
    if (window && (at < window.startUs || at > window.endUs)) return;
    const next = intervals[i + 1] ?? 0;
    selfMs.set(id, (selfMs.get(id) ?? 0) + next / 1000);
  });
  const parents = new Map();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parents.set(child, node.id);
  }
  // Native work (a socket write, a hash) charged to the nearest library or service that asked for
  // it: the first frame up the stack outside Node and V8.
  const askedBy = (id) => {
    for (let at = id; at !== undefined; at = parents.get(at)) {
      const module = moduleOf(nodes.get(at).callFrame.url);
      if (module !== '(native/V8)' && !module.startsWith('node:')) return module;
    }
    return '(native/V8)';
  };
  const byFunction = new Map();
  const byModule = new Map();
  const byCaller = new Map();
  let total = 0;
  for (const [id, ms] of selfMs) {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    const module = moduleOf(url);
    if (functionName === '(idle)') continue;
    const name = `${functionName || '(anonymous)'} ${module}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    byModule.set(module, (byModule.get(module) ?? 0) + ms);
    const caller = askedBy(id);
    byCaller.set(caller, (byCaller.get(caller) ?? 0) + ms);
    total += ms;
  }
  return { total, byFunction, byModule, byCaller };
}

function top(map, total, n, sends) {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => ({
      name,
      'self ms': Math.round(ms),
      '%': Number(((100 * ms) / total).toFixed(1)),
      ...(sends ? { 'ms per send': Number((ms / sends).toFixed(3)) } : {}),
    }));
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const n = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 15;
  const windowAt = args.indexOf('--window');
  const window =
    windowAt >= 0 ? JSON.parse(fs.readFileSync(args.splice(windowAt, 2)[1], 'utf8')) : undefined;
  const sends = window?.sends;
  for (const file of args) {
    const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
    const { total, byFunction, byModule, byCaller } = summarize(profile, window);
    // Which process: the module of any frame from a dist/main.js.
    const main = profile.nodes.find((node) => /\/dist\/main\.js$/.test(node.callFrame.url));
    const name = main ? moduleOf(main.callFrame.url) : '?';
    const perSend = sends ? `, ${(total / sends).toFixed(2)} ms per send` : '';
    console.log(`\n${path.basename(file)}: ${name}, ${Math.round(total)} ms busy${perSend}`);
    console.log('self time by module:');
    console.table(top(byModule, total, n, sends));
    console.log("self time by the module that asked (Node's and V8's work charged to its caller):");
    console.table(top(byCaller, total, n, sends));
    console.log('self time by function:');
    console.table(top(byFunction, total, n, sends));
  }
}

module.exports = { moduleOf, summarize, top };
