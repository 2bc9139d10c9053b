import { z } from 'zod';
import {
  ConfigError,
  baseConfigShape,
  booleanFlag,
  loadConfig,
  parseBrokerUrls,
  portSchema,
} from '../../src';

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

  test('when MONGODB_URL names the members of a replica set, then it is accepted; anything not a connection string is refused', () => {
    const secret = { INTERNAL_API_SECRET: 'x'.repeat(16) };
    for (const good of [
      'mongodb://u:p@m0:27017,m1:27017,m2:27017/?replicaSet=rs0&w=majority&retryWrites=true',
      'mongodb+srv://u:p@cluster.example.net/?retryWrites=true',
      'mongodb://127.0.0.1:27017',
    ]) {
      expect(loadConfig(schema, { ...secret, MONGODB_URL: good }).MONGODB_URL).toBe(good);
    }
    for (const bad of ['not a url', 'http://m0:27017', 'mongodb://m0:27017,,m1:27017']) {
      expect(() => loadConfig(schema, { ...secret, MONGODB_URL: bad })).toThrow(/MONGODB_URL/);
    }
  });

  test('when AMQP_URL lists the nodes of a cluster, then each must be an amqp(s) URL', () => {
    const secret = { INTERNAL_API_SECRET: 'x'.repeat(16) };
    const nodes = 'amqp://u:p@a:5672/v, amqps://u:p@b:5671/v,amqp://c';
    expect(loadConfig(schema, { ...secret, AMQP_URL: nodes }).AMQP_URL).toBe(nodes);
    expect(parseBrokerUrls(nodes)).toEqual([
      'amqp://u:p@a:5672/v',
      'amqps://u:p@b:5671/v',
      'amqp://c',
    ]);
    for (const bad of ['', 'amqp://a,http://b', 'not a url', ',']) {
      expect(() => loadConfig(schema, { ...secret, AMQP_URL: bad })).toThrow(/AMQP_URL/);
    }
  });

  test('when nothing says otherwise, then customer URLs may not reach private addresses; a variable it replaced stops the start naming ALLOW_PRIVATE_URLS', () => {
    const secret = { INTERNAL_API_SECRET: 'x'.repeat(16) };
    expect(loadConfig(schema, secret).ALLOW_PRIVATE_URLS).toBe(false);
    expect(loadConfig(schema, { ...secret, ALLOW_PRIVATE_URLS: 'true' }).ALLOW_PRIVATE_URLS).toBe(
      true,
    );
    for (const replaced of [
      'WEBHOOK_ALLOW_PRIVATE_URLS',
      'AI_BOT_ALLOW_PRIVATE_URLS',
      'MEDIA_ALLOW_PRIVATE_URLS',
    ]) {
      expect(() => loadConfig(schema, { ...secret, [replaced]: 'true' })).toThrow(
        `${replaced}: replaced by ALLOW_PRIVATE_URLS`,
      );
    }
  });
});
