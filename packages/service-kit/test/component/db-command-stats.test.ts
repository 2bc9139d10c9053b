import { baseConfigSchema, startServiceRuntime, type ServiceConfig } from '../../src';
import {
  AMQP_URL,
  MONGODB_URL,
  dropDatabasesWithPrefix,
  randomSecret,
  uniquePrefix,
} from '../../../../test/support/test-infra';

const prefix = uniquePrefix('dbstats');
const configWith = (flags: Record<string, string>): ServiceConfig => ({
  ...baseConfigSchema.parse({
    MONGODB_URL,
    AMQP_URL,
    MONGODB_DB_PREFIX: prefix,
    INTERNAL_API_SECRET: randomSecret(),
    LOG_LEVEL: 'silent',
    SHUTDOWN_TIMEOUT_MS: '5000',
    ...flags,
  }),
  PORT: 0,
});

afterAll(() => dropDatabasesWithPrefix(prefix));

/** A service that writes and reads one document per request, as a send does in small. */
async function startService(flags: Record<string, string>) {
  return startServiceRuntime({
    service: 'inbound',
    config: configWith(flags),
    useBroker: false,
    setup: ({ db }) => ({
      routes: (router) => {
        router.post('/internal/touch', async (_req, res) => {
          const { insertedId } = await db.collection('things').insertOne({ at: new Date() });
          await db.collection('things').findOne({ _id: insertedId });
          res.json({ status: 'success' });
        });
        router.post('/internal/touch-many', async (_req, res) => {
          await db.collection('batches').insertMany([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
          await db
            .collection('batches')
            .bulkWrite([
              { updateOne: { filter: { n: 1 }, update: { $set: { seen: true } } } },
              { updateOne: { filter: { n: 2 }, update: { $set: { seen: true } } } },
            ]);
          res.json({ status: 'success' });
        });
      },
    }),
  });
}

async function touch(url: string, secret: string, times: number) {
  for (let i = 0; i < times; i++) {
    const answer = await fetch(`${url}/internal/touch`, {
      method: 'POST',
      headers: { 'x-internal-secret': secret },
    });
    expect(answer.status).toBe(200);
  }
}

const commandLine = (metrics: string, command: string) =>
  metrics
    .split('\n')
    .find(
      (line) =>
        line.startsWith('switchboard_db_commands_total{') && line.includes(`command="${command}"`),
    );

describe('database command counter (DB_COMMAND_STATS)', () => {
  test('when it is on, then /metrics counts every command the service sent, by name and collection', async () => {
    const service = await startService({ DB_COMMAND_STATS: '1' });
    try {
      await touch(service.url, service.config.INTERNAL_API_SECRET, 3);
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      expect(commandLine(metrics, 'insert')).toMatch(/ 3$/);
      expect(commandLine(metrics, 'find')).toMatch(/ 3$/);
      expect(commandLine(metrics, 'insert')).toContain('collection="things"');
      expect(commandLine(metrics, 'find')).toContain('collection="things"');
    } finally {
      await service.stop();
    }
  });

  test('when it is on, then /metrics also counts the documents each write command names (a bulk write is one command, many rows)', async () => {
    const service = await startService({ DB_COMMAND_STATS: '1' });
    try {
      const answer = await fetch(`${service.url}/internal/touch-many`, {
        method: 'POST',
        headers: { 'x-internal-secret': service.config.INTERNAL_API_SECRET },
      });
      expect(answer.status).toBe(200);
      const metrics = (await (await fetch(`${service.url}/metrics`)).text()).split('\n');
      const line = (name: string, command: string) =>
        metrics.find(
          (text) =>
            text.startsWith(`${name}{`) &&
            text.includes(`command="${command}"`) &&
            text.includes('collection="batches"'),
        );
      expect(line('switchboard_db_commands_total', 'insert')).toMatch(/ 1$/);
      expect(line('switchboard_db_rows_written_total', 'insert')).toMatch(/ 4$/);
      expect(line('switchboard_db_commands_total', 'update')).toMatch(/ 1$/);
      expect(line('switchboard_db_rows_written_total', 'update')).toMatch(/ 2$/);
    } finally {
      await service.stop();
    }
  });

  test('when it is off, then the driver does not monitor commands and nothing is counted', async () => {
    const service = await startService({});
    try {
      await touch(service.url, service.config.INTERNAL_API_SECRET, 2);
      const client = service.db.getClient();
      // No monitoring: the driver builds no command events, so the counter costs nothing.
      expect(client.options.monitorCommands).toBe(false);
      expect(client.listenerCount('commandStarted')).toBe(0);
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      expect(metrics).not.toContain('switchboard_db_commands_total');
      expect(metrics).not.toContain('switchboard_db_rows_written_total');
    } finally {
      await service.stop();
    }
  });
});
