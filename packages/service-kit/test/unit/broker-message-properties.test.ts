import type { ConsumeMessage } from 'amqplib';
import {
  attemptsMade,
  forwardedProperties,
  originalRoutingKey,
} from '../../src/broker/message-properties';

const delivery = (headers: Record<string, unknown>, routingKey = 'provider.status') =>
  ({
    content: Buffer.from('{}'),
    fields: {
      deliveryTag: 1,
      redelivered: false,
      exchange: 'svc.provider',
      routingKey,
      consumerTag: 'c',
    },
    properties: {
      contentType: 'application/json',
      messageId: 'm-1',
      expiration: '60000',
      userId: 'guest',
      timestamp: 1_700_000_000,
      headers,
    },
  }) as unknown as ConsumeMessage;

describe('message properties of a forwarded message', () => {
  test('when first forwarded, then it keeps its id and headers, records where it came from, and is persistent', () => {
    const properties = forwardedProperties(delivery({ traceparent: 't' }), { 'x-attempts': 1 });
    expect(properties).toEqual({
      contentType: 'application/json',
      messageId: 'm-1',
      timestamp: 1_700_000_000,
      persistent: true,
      headers: {
        traceparent: 't',
        'x-original-exchange': 'svc.provider',
        'x-original-routing-key': 'provider.status',
        'x-attempts': 1,
      },
    });
  });

  test('when a retried message comes back through the default exchange, then its first routing key and attempts survive', () => {
    const back = delivery(
      {
        'x-attempts': 2,
        'x-original-exchange': 'svc.provider',
        'x-original-routing-key': 'provider.status',
        'x-death': [{ count: 1 }],
        'x-first-death-queue': 'q.retry',
      },
      'q',
    );
    expect(attemptsMade(back)).toBe(2);
    expect(originalRoutingKey(back)).toBe('provider.status');
    const headers = forwardedProperties(back, { 'x-attempts': 3 }).headers as Record<
      string,
      unknown
    >;
    expect(headers).toEqual({
      'x-attempts': 3,
      'x-original-exchange': 'svc.provider',
      'x-original-routing-key': 'provider.status',
    });
  });

  test('when the attempts header is missing or nonsense, then no attempts were made', () => {
    expect(attemptsMade(delivery({}))).toBe(0);
    expect(attemptsMade(delivery({ 'x-attempts': 'many' }))).toBe(0);
  });
});
