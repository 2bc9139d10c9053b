import { managementUrlOf } from '../../scripts/rabbitmq-admin';

describe('managementUrlOf', () => {
  test('when RABBITMQ_MANAGEMENT_URL is set, then it is the address', () => {
    expect(
      managementUrlOf('amqp://127.0.0.1:5672', {
        RABBITMQ_MANAGEMENT_URL: 'http://admin:pw@rabbit.example:15672',
      }),
    ).toBe('http://admin:pw@rabbit.example:15672');
  });

  test('when it is not, then the API is beside the first AMQP URL: its host and credentials, port + 10000', () => {
    expect(managementUrlOf('amqp://127.0.0.1:5672', {})).toBe(
      'http://guest:guest@127.0.0.1:15672/',
    );
    expect(
      managementUrlOf('amqp://app:s3cret@rabbit-1/vh,amqp://app:s3cret@rabbit-2:5672', {}),
    ).toBe('http://app:s3cret@rabbit-1:15672/');
    expect(managementUrlOf('amqp://127.0.0.1:5701/t_x', {})).toBe(
      'http://guest:guest@127.0.0.1:15701/',
    );
  });
});
