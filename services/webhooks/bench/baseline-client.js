// The delivery benchmark's baseline client, a process of its own (forked by
// delivery-throughput.bench.js with an IPC channel), as the webhooks service is: on
// `{type: 'run', port, total, concurrency, body}` `concurrency` workers POST the body to
// `/baseline` on the receiver with plain Node HTTP (keep-alive agent, no retries), each request
// with its own X-Webhook-Id; then it answers
// `{type: 'done', sentAt: [[id, at], …], startedAt, endedAt}`.
const http = require('node:http');

async function run({ port, total, concurrency, body: text, idPrefix }) {
  const agent = new http.Agent({ keepAlive: true });
  const body = Buffer.from(text);
  const sentAt = [];
  let next = 0;
  const startedAt = Date.now();
  const worker = async () => {
    while (next < total) {
      const id = `${idPrefix}${next++}`;
      sentAt.push([id, Date.now()]);
      await new Promise((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/baseline',
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              'content-length': body.length,
              'x-webhook-id': id,
            },
          },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const endedAt = Date.now();
  agent.destroy();
  return { sentAt, startedAt, endedAt };
}

process.on('message', (message) => {
  if (message.type !== 'run') return;
  run(message).then(
    (result) => process.send({ type: 'done', ...result }),
    (error) => process.send({ type: 'failed', message: String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send({ type: 'ready' });
