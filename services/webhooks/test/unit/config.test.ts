import { webhooksConfigSchema } from '../../src/config';

const base = { INTERNAL_API_SECRET: 'an-internal-secret-of-the-cluster' };

describe('webhooks configuration', () => {
  test('when nothing is set, then the spec values apply and private URLs are refused', () => {
    const config = webhooksConfigSchema.parse(base);
    expect(config).toMatchObject({
      PORT: 8084,
      WEBHOOK_RETRY_DELAYS: [10_000, 30_000, 60_000],
      WEBHOOK_MAX_ATTEMPTS: 3,
      WEBHOOK_TIMEOUT_MS: 10_000,
      ALLOW_PRIVATE_URLS: false,
    });
  });

  test('when the delays are fractions of seconds, then they are accepted for tests', () => {
    const config = webhooksConfigSchema.parse({ ...base, WEBHOOK_RETRY_DELAYS: '0.2, 0.4,0.6' });
    expect(config.WEBHOOK_RETRY_DELAYS).toEqual([200, 400, 600]);
  });

  test.each(['10,30', '10,30,60,120', '10,x,60', '0,30,60', '-1,30,60'])(
    'when the delays are %s, then the configuration is refused',
    (delays) => {
      expect(
        webhooksConfigSchema.safeParse({ ...base, WEBHOOK_RETRY_DELAYS: delays }).success,
      ).toBe(false);
    },
  );

  test('when an encryption key is not 32 bytes, then the configuration is refused', () => {
    const short = Buffer.alloc(16).toString('base64');
    expect(
      webhooksConfigSchema.safeParse({ ...base, WEBHOOK_SECRET_ENCRYPTION_KEY: short }).success,
    ).toBe(false);
  });
});
