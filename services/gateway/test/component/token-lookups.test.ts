import { startGatewayStack, type GatewayStack } from '../support/gateway-harness';
import {
  dropDatabasesWithPrefix,
  freePortBlock,
  isolatedAmqpUrl,
  uniquePrefix,
  dbCommandsOn,
} from '../../../../test/support/test-infra';

jest.setTimeout(60_000);

const prefix = uniquePrefix('gwtokens');
let stack: GatewayStack;
let broker: Awaited<ReturnType<typeof isolatedAmqpUrl>>;
let metricsPort: number;

beforeAll(async () => {
  broker = await isolatedAmqpUrl('gwtokens');
  metricsPort = await freePortBlock(1);
  stack = await startGatewayStack({
    dbPrefix: prefix,
    amqpUrl: broker.url,
    gatewayEnv: {
      METRICS_PORT: String(metricsPort),
      DB_COMMAND_STATS: 'true',
      API_RATE_SCALE: '1000',
    },
  });
});

afterAll(async () => {
  await stack?.stop();
  await dropDatabasesWithPrefix(prefix);
  await broker?.drop();
});

/** The database commands the service has sent on `collection`, by its metrics. */
const commandsOn = (collection: string) =>
  dbCommandsOn(`http://127.0.0.1:${metricsPort}/metrics`, collection);

test('when many requests of one token arrive together before it is cached, then the token is read from the database once and every request is answered', async () => {
  const { token, organization } = await stack.createOrganization('premium');
  const before = await commandsOn('api_tokens');
  const answers = await Promise.all(
    Array.from({ length: 20 }, () =>
      fetch(`${stack.gateway.url}/api/svc/me`, { headers: { authorization: `Bearer ${token}` } }),
    ),
  );
  for (const answer of answers) expect(answer.status).toBe(200);
  const bodies = (await Promise.all(answers.map((answer) => answer.json()))) as {
    organization?: { company_id: number };
  }[];
  for (const body of bodies) {
    expect(body).toMatchObject({ organization: { company_id: organization.company_id } });
  }
  // One read of the token (and a write of its last use), not one per request.
  expect((await commandsOn('api_tokens')) - before).toBeLessThanOrEqual(2);
});
