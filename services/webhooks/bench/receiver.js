// The delivery benchmark's webhook receiver, a process of its own (forked by
// delivery-throughput.bench.js with an IPC channel): reads each body, notes when it arrived by its
// X-Webhook-Id, answers 200. Both the service and the baseline's client hit it, so both sides of
// the comparison pay the same receiver on a core of its own.
//
// Messages from the parent: `{type: 'count', side}` → `{type: 'count', count}`;
// `{type: 'take', side}` → `{type: 'take', arrivals: [[id, at], …]}` and forgets them. `side` is
// 'baseline' (path /baseline) or 'service' (any other path). The first message to the parent is
// `{type: 'listening', port}`.
const http = require('node:http');

const RECEIVER_DELAY_MS = Number(process.env.RECEIVER_DELAY_MS ?? 0);
const arrivals = { baseline: [], service: [] };

const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    const side = req.url === '/baseline' ? 'baseline' : 'service';
    arrivals[side].push([req.headers['x-webhook-id'], Date.now()]);
    const answer = () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (RECEIVER_DELAY_MS > 0) setTimeout(answer, RECEIVER_DELAY_MS);
    else answer();
  });
});
server.keepAliveTimeout = 65_000;

process.on('message', (message) => {
  if (message.type === 'count') {
    process.send({ type: 'count', count: arrivals[message.side].length });
  } else if (message.type === 'take') {
    process.send({ type: 'take', arrivals: arrivals[message.side] });
    arrivals[message.side] = [];
  }
});
process.on('disconnect', () => server.close(() => process.exit(0)));

server.listen(0, '127.0.0.1', () =>
  process.send({ type: 'listening', port: server.address().port }),
);
