// Which MongoDB and RabbitMQ `npm test` runs on, chosen by TEST_INFRA:
//   unset or `local`  the local infrastructure: scripts/infra.sh starts it, or MONGODB_URL and
//                     AMQP_URL name servers of your own;
//   `testcontainers`  a MongoDB and a RabbitMQ container of this run's own (Testcontainers), when a
//                     Docker engine answers; without one, the local infrastructure, saying why.
//
//   node scripts/test-infrastructure.js <command...>
// runs the command on the chosen infrastructure (its URLs in the command's environment, and
// TEST_INFRASTRUCTURE saying which it is, printed by the test summary), then stops the containers.
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');

/** The images docker-compose.yml runs; RabbitMQ's with the management API the tests use. */
const IMAGES = { mongodb: 'mongo:7', rabbitmq: 'rabbitmq:3-management' };

/**
 * `requested` is TEST_INFRA; `dockerAnswers()` is asked only when containers are requested and
 * resolves `{ answers: true }` or `{ answers: false, why }`.
 * Resolves `{ kind: 'local' | 'testcontainers', reason }`.
 */
async function chooseInfrastructure(requested, dockerAnswers) {
  const value = (requested ?? '').trim();
  if (value === '') return { kind: 'local', reason: 'TEST_INFRA unset' };
  if (value === 'local') return { kind: 'local', reason: 'TEST_INFRA=local' };
  if (value !== 'testcontainers') {
    throw new Error(`TEST_INFRA must be local or testcontainers, not '${value}'`);
  }
  const docker = await dockerAnswers();
  if (docker.answers) return { kind: 'testcontainers', reason: 'TEST_INFRA=testcontainers' };
  return {
    kind: 'local',
    reason: `TEST_INFRA=testcontainers, but no Docker engine answers (${docker.why})`,
  };
}

/** Whether Testcontainers finds a container runtime (DOCKER_HOST, the Docker socket, …). */
async function dockerAnswers() {
  try {
    await require('testcontainers').getContainerRuntimeClient();
    return { answers: true };
  } catch (error) {
    return { answers: false, why: error instanceof Error ? error.message : String(error) };
  }
}

/** The local servers' URLs: MONGODB_URL and AMQP_URL when given, else what infra.sh starts. */
function localUrls(env = process.env) {
  return {
    MONGODB_URL: env.MONGODB_URL || `mongodb://127.0.0.1:${env.DOCDB_PORT || 27017}`,
    AMQP_URL: env.AMQP_URL || `amqp://127.0.0.1:${env.AMQP_PORT || 5672}`,
  };
}

/** URL without its password, for printing. */
const redact = (url) => url.replace(/(:\/\/[^:@/]+):[^@/]*@/g, '$1:***@');

/** What the test summary prints when the run was not started through this script. */
function describeInfrastructure(env = process.env) {
  if (env.TEST_INFRASTRUCTURE) return env.TEST_INFRASTRUCTURE;
  const urls = localUrls(env);
  return `local (${redact(urls.MONGODB_URL)}, ${redact(urls.AMQP_URL)})`;
}

async function startContainers() {
  const { MongoDBContainer } = require('@testcontainers/mongodb');
  const { RabbitMQContainer } = require('@testcontainers/rabbitmq');
  const [mongodb, rabbitmq] = await Promise.all([
    new MongoDBContainer(IMAGES.mongodb).start(),
    new RabbitMQContainer(IMAGES.rabbitmq).start(),
  ]);
  return {
    env: {
      // A one-member replica set that names itself by the container's host name: connect directly.
      MONGODB_URL: `${mongodb.getConnectionString()}/?directConnection=true`,
      AMQP_URL: rabbitmq.getAmqpUrl(),
      RABBITMQ_MANAGEMENT_URL: `http://guest:guest@${rabbitmq.getHost()}:${rabbitmq.getMappedPort(15672)}`,
    },
    stop: () => Promise.all([mongodb.stop(), rabbitmq.stop()]),
  };
}

async function main(command) {
  if (command.length === 0)
    throw new Error('usage: node scripts/test-infrastructure.js <command...>');
  const choice = await chooseInfrastructure(process.env.TEST_INFRA, dockerAnswers);
  let env;
  let stop = async () => undefined;
  let description;
  if (choice.kind === 'testcontainers') {
    const started = await startContainers();
    ({ env, stop } = started);
    description = `testcontainers (${IMAGES.mongodb}, ${IMAGES.rabbitmq})`;
  } else {
    const up = spawnSync('bash', [path.join(__dirname, 'infra.sh'), 'up'], { stdio: 'inherit' });
    if (up.status !== 0) process.exit(up.status ?? 1);
    env = localUrls();
    description = `local (${redact(env.MONGODB_URL)}, ${redact(env.AMQP_URL)}; ${choice.reason})`;
  }
  console.log(`test: infrastructure: ${description}`);

  const child = spawn(command[0], command.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, ...env, TEST_INFRASTRUCTURE: description },
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  const code = await new Promise((resolve) => child.on('exit', (status) => resolve(status ?? 1)));
  await stop();
  process.exit(code);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(`test: infrastructure: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  });
}

module.exports = { IMAGES, chooseInfrastructure, describeInfrastructure, localUrls };
