import { z } from 'zod';
import { ConfigError, baseConfigShape, booleanFlag, loadConfig, portSchema } from '../../src';

const schema = z.object({ ...baseConfigShape, PORT: portSchema(8081), FLAG: booleanFlag(false) });

describe('loadConfig', () => {
  test('when required variables are missing or invalid, then it throws naming each one', () => {
    expect(() => loadConfig(schema, { PORT: 'eighty', MONGODB_URL: 'not a url' })).toThrow(
      ConfigError,
    );
    try {
      loadConfig(schema, { PORT: 'eighty' });
    } catch (error) {
      expect((error as Error).message).toContain('INTERNAL_API_SECRET');
      expect((error as Error).message).toContain('PORT');
    }
  });

  test('when the environment is valid, then defaults fill the rest and the result is frozen', () => {
    const config = loadConfig(schema, { INTERNAL_API_SECRET: 'x'.repeat(16), FLAG: '1' });
    expect(config).toMatchObject({
      PORT: 8081,
      MONGODB_URL: 'mongodb://127.0.0.1:27017',
      AMQP_URL: 'amqp://127.0.0.1:5672',
      FLAG: true,
      LOG_LEVEL: 'info',
    });
    expect(Object.isFrozen(config)).toBe(true);
  });
});
