// RabbitMQ's management HTTP API, for tests and benchmarks: vhosts of their own, the queues and
// connections they look at. Over HTTP rather than a local `rabbitmqctl`, so that they run as well
// against a broker on another machine or in a container.

/**
 * The management API's address: RABBITMQ_MANAGEMENT_URL when set, else beside the first AMQP URL
 * (its host and credentials, port + 10000: 15672 beside 5672, as `scripts/infra.sh` sets it up).
 */
function managementUrlOf(amqpUrl, env = process.env) {
  if (env.RABBITMQ_MANAGEMENT_URL) return env.RABBITMQ_MANAGEMENT_URL;
  const amqp = new URL(amqpUrl.split(',')[0].trim());
  const port = Number(amqp.port || (amqp.protocol === 'amqps:' ? 5671 : 5672)) + 10000;
  const url = new URL(
    `http://${amqp.hostname.includes(':') ? `[${amqp.hostname}]` : amqp.hostname}:${port}`,
  );
  url.username = amqp.username || 'guest';
  url.password = amqp.password || 'guest';
  return url.toString();
}

/** A client of the management API at `baseUrl` (credentials in the URL; guest:guest without). */
function createRabbitAdmin(baseUrl) {
  const base = new URL(baseUrl);
  const user = decodeURIComponent(base.username) || 'guest';
  const password = decodeURIComponent(base.password) || 'guest';
  base.username = '';
  base.password = '';
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const root = base.toString().replace(/\/$/, '');

  async function call(method, path, body, headers = {}) {
    const response = await fetch(`${root}/api${path}`, {
      method,
      headers: {
        authorization,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (!response.ok && !(method === 'DELETE' && response.status === 404)) {
      throw new Error(
        `RabbitMQ management API: ${method} ${path} answered ${response.status} ${text}`,
      );
    }
    return text ? JSON.parse(text) : undefined;
  }
  const vhostPath = (vhost) => encodeURIComponent(vhost);

  return {
    /** A vhost, with every permission for the API's user (whom the AMQP URLs name). */
    async addVhost(vhost) {
      await call('PUT', `/vhosts/${vhostPath(vhost)}`, {});
      await call('PUT', `/permissions/${vhostPath(vhost)}/${encodeURIComponent(user)}`, {
        configure: '.*',
        write: '.*',
        read: '.*',
      });
    },
    /** Deletes the vhost with its queues; one already gone is no error. */
    async deleteVhost(vhost) {
      await call('DELETE', `/vhosts/${vhostPath(vhost)}`);
    },
    /** The vhost's queues, with their type (classic, quorum). */
    async queues(vhost) {
      const rows = await call('GET', `/queues/${vhostPath(vhost)}?columns=name,type`);
      return rows.map((row) => ({ name: row.name, type: row.type }));
    },
    /**
     * What the vhost's broker has counted so far: the vhost's totals (published, confirmed,
     * delivered, acked), each queue's (enqueued, delivered, acked, redelivered) and each
     * exchange's (published in, routed out). The API refreshes these every statistics interval
     * (5 s by default): read them once the traffic has been quiet that long.
     */
    async messageStats(vhost) {
      const v = vhostPath(vhost);
      const pick = (stats = {}, keys) =>
        Object.fromEntries(keys.map((key) => [key, Number(stats[key] ?? 0)]));
      const totals = await call('GET', `/vhosts/${v}`);
      const queues = await call('GET', `/queues/${v}?columns=name,type,message_stats`);
      const exchanges = await call('GET', `/exchanges/${v}?columns=name,type,message_stats`);
      return {
        vhost: pick(totals.message_stats, [
          'publish',
          'confirm',
          'deliver_get',
          'ack',
          'redeliver',
          'return_unroutable',
          'drop_unroutable',
        ]),
        queues: Object.fromEntries(
          queues.map((row) => [
            row.name,
            {
              type: row.type,
              ...pick(row.message_stats, ['publish', 'deliver_get', 'ack', 'redeliver']),
            },
          ]),
        ),
        exchanges: Object.fromEntries(
          exchanges
            .filter((row) => row.name !== '')
            .map((row) => [row.name, pick(row.message_stats, ['publish_in', 'publish_out'])]),
        ),
      };
    },
    /**
     * Closes the connections that `matches` picks (by vhost and client-given name), as a broker
     * restart would. The API lists a new connection within its statistics interval (5 s by
     * default), so it is waited for up to `timeoutMs`. Resolves with how many were closed.
     */
    async closeConnections(matches, { timeoutMs = 20_000, reason = 'closed by a test' } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const rows = await call('GET', '/connections?columns=name,vhost,client_properties');
        const ours = rows.filter((row) =>
          matches({
            vhost: row.vhost,
            connectionName: row.client_properties?.connection_name,
          }),
        );
        if (ours.length > 0) {
          for (const row of ours) {
            await call('DELETE', `/connections/${encodeURIComponent(row.name)}`, undefined, {
              'x-reason': reason,
            });
          }
          return ours.length;
        }
        if (Date.now() > deadline) throw new Error('no such connection within the time allowed');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
  };
}

module.exports = { createRabbitAdmin, managementUrlOf };
