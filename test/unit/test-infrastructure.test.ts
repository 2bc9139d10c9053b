import {
  chooseInfrastructure,
  describeInfrastructure,
  localUrls,
} from '../../scripts/test-infrastructure';

const dockerUp = async () => ({ answers: true as const });
const dockerDown = async () => ({
  answers: false as const,
  why: 'Could not find a working container runtime strategy',
});

describe('chooseInfrastructure', () => {
  test('when TEST_INFRA is unset, empty or local, then the local infrastructure runs and Docker is not asked', async () => {
    const neverAsked = jest.fn(dockerUp);

    await expect(chooseInfrastructure(undefined, neverAsked)).resolves.toEqual({
      kind: 'local',
      reason: 'TEST_INFRA unset',
    });
    await expect(chooseInfrastructure('', neverAsked)).resolves.toMatchObject({ kind: 'local' });
    await expect(chooseInfrastructure('local', neverAsked)).resolves.toEqual({
      kind: 'local',
      reason: 'TEST_INFRA=local',
    });
    expect(neverAsked).not.toHaveBeenCalled();
  });

  test('when TEST_INFRA is testcontainers and a Docker engine answers, then containers run', async () => {
    await expect(chooseInfrastructure('testcontainers', dockerUp)).resolves.toEqual({
      kind: 'testcontainers',
      reason: 'TEST_INFRA=testcontainers',
    });
  });

  test('when TEST_INFRA is testcontainers and no Docker engine answers, then the local infrastructure runs and the reason says why', async () => {
    await expect(chooseInfrastructure('testcontainers', dockerDown)).resolves.toEqual({
      kind: 'local',
      reason:
        'TEST_INFRA=testcontainers, but no Docker engine answers (Could not find a working container runtime strategy)',
    });
  });

  test('when TEST_INFRA names something else, then the run stops with the values it takes', async () => {
    await expect(chooseInfrastructure('docker', dockerUp)).rejects.toThrow(
      "TEST_INFRA must be local or testcontainers, not 'docker'",
    );
  });
});

describe('the infrastructure a run prints', () => {
  test('when the run was started on chosen infrastructure, then its description is printed; otherwise the URLs in use, without passwords', () => {
    expect(describeInfrastructure({ TEST_INFRASTRUCTURE: 'testcontainers (mongo:7, x)' })).toBe(
      'testcontainers (mongo:7, x)',
    );
    expect(describeInfrastructure({})).toBe(
      'local (mongodb://127.0.0.1:27017, amqp://127.0.0.1:5672)',
    );
    expect(
      describeInfrastructure({ AMQP_URL: 'amqp://app:s3cret@rabbit:5672/', DOCDB_PORT: '27018' }),
    ).toBe('local (mongodb://127.0.0.1:27018, amqp://app:***@rabbit:5672/)');
    expect(localUrls({ AMQP_PORT: '5673' }).AMQP_URL).toBe('amqp://127.0.0.1:5673');
  });
});
