import {
  CreateWebhookRequestSchema,
  DeliveryLogSchema,
  DEFAULT_LOGS_PER_PAGE,
  DeliveryLogsQuerySchema,
  pageRequest,
  UpdateWebhookRequestSchema,
  WEBHOOK_OPERATIONS,
  WebhookDeliveryMessageSchema,
  WebhookEventsSchema,
  WebhookUrlSchema,
  unknownEventNames,
} from '../../src';

describe('webhooks API schemas', () => {
  test('when events are listed, then duplicates are dropped and reserved names are accepted', () => {
    expect(WebhookEventsSchema.parse(['message_sent', 'contact_created', 'message_sent'])).toEqual([
      'message_sent',
      'contact_created',
    ]);
  });

  test('when events hold unknown names, then the error names each of them', () => {
    const result = WebhookEventsSchema.safeParse(['message_sent', 'order_paid', 'x', 'x']);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      'unknown event names: order_paid, x',
    ]);
    expect(unknownEventNames(['message_sent', 'x'])).toEqual(['x']);
  });

  test.each([[[]], ['message_sent'], [[{ $gt: '' }]]])(
    'when events are %j, then they are refused',
    (events) => {
      expect(WebhookEventsSchema.safeParse(events).success).toBe(false);
    },
  );

  test('when a URL is given, then it is trimmed and normalized, its fragment dropped', () => {
    expect(WebhookUrlSchema.parse('  https://Example.com:443/in?x=1#frag ')).toBe(
      'https://example.com/in?x=1',
    );
  });

  test.each([
    'example.com/in',
    'ftp://example.com',
    'javascript:alert(1)',
    'https://u:p@example.com/',
  ])('when the URL is %s, then it is refused', (url) => {
    expect(WebhookUrlSchema.safeParse(url).success).toBe(false);
  });

  test('when a webhook is created, then name, url and events are required', () => {
    expect(
      CreateWebhookRequestSchema.safeParse({ name: 'A', url: 'https://a.example/' }).success,
    ).toBe(false);
    expect(
      CreateWebhookRequestSchema.parse({
        name: ' A ',
        url: 'https://a.example/',
        events: ['message_sent'],
      }),
    ).toEqual({ name: 'A', url: 'https://a.example/', events: ['message_sent'] });
  });

  test('when an update changes nothing, then it is refused', () => {
    expect(UpdateWebhookRequestSchema.safeParse({}).success).toBe(false);
    expect(UpdateWebhookRequestSchema.parse({ name: 'B' })).toEqual({ name: 'B' });
  });

  test('when logs are asked without paging, then page 1 of 20 is meant; over 100 is refused', () => {
    expect(pageRequest(DeliveryLogsQuerySchema.parse({}), DEFAULT_LOGS_PER_PAGE)).toEqual({
      page: 1,
      per_page: 20,
      skip: 0,
    });
    expect(DeliveryLogsQuerySchema.safeParse({ limit: '101' }).success).toBe(false);
    expect(DeliveryLogsQuerySchema.safeParse({ per_page: '101' }).success).toBe(false);
  });

  test('when a log row is read, then its attempt reads "n / max"', () => {
    const row = {
      id: 'd:1',
      delivery_id: 'd',
      event_id: 'e',
      event: 'message_sent',
      payload: { event: 'message_sent', timestamp: '2026-11-22T10:00:00+00:00', data: {} },
      response_status: 500,
      response_body: '',
      error: 'receiver answered 500',
      attempt: '1 / 3',
      state: 'retrying',
      created_at: '2026-11-22T10:00:01.000Z',
      duration_ms: 12,
    };
    expect(DeliveryLogSchema.parse(row)).toEqual(row);
    expect(DeliveryLogSchema.safeParse({ ...row, attempt: '1 of 3' }).success).toBe(false);
    expect(DeliveryLogSchema.safeParse({ ...row, state: 'pending' }).success).toBe(false);
  });

  test('when a delivery message is read, then postponed and possibly_duplicate default and extra keys are refused', () => {
    const message = {
      delivery_id: 'd',
      webhook_id: 3,
      attempt: 1,
      event_id: 'e',
      event: 'message_sent',
      payload: '{"event":"message_sent"}',
      generation: 0,
    };
    expect(WebhookDeliveryMessageSchema.parse(message)).toEqual({
      ...message,
      postponed: 0,
      possibly_duplicate: false,
    });
    expect(WebhookDeliveryMessageSchema.safeParse({ ...message, x: 1 }).success).toBe(false);
    expect(
      WebhookDeliveryMessageSchema.safeParse({ ...message, event: 'order_paid' }).success,
    ).toBe(false);
  });

  test('when the operations are listed, then they are the spec paths and ours, all with the API token', () => {
    expect(WEBHOOK_OPERATIONS.map((op) => `${op.method.toUpperCase()} ${op.path}`)).toEqual([
      'POST /developer/webhooks',
      'GET /developer/webhooks',
      'GET /developer/webhooks/{id}',
      'PUT /developer/webhooks/{id}',
      'DELETE /developer/webhooks/{id}',
      'POST /developer/webhooks/{id}/toggle',
      'POST /developer/webhooks/{id}/test',
      'POST /developer/webhooks/{id}/rotate-secret',
      'GET /developer/webhooks/{id}/logs',
      'POST /developer/webhooks/{id}/logs/{log_id}/redeliver',
    ]);
    expect(new Set(WEBHOOK_OPERATIONS.map((op) => op.auth))).toEqual(new Set(['token']));
  });
});
