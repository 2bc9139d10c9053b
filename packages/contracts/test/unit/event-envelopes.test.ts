import { randomUUID } from 'node:crypto';
import {
  BrokerEventSchema,
  EVENT_NAMES,
  EventNameSchema,
  RESERVED_EVENT_NAMES,
  WebhookEnvelopeSchema,
  isReservedEventName,
  parseBrokerEvent,
  toWebhookEnvelope,
} from '../../src';

const sentData = {
  message_id: 42,
  message_wamid: 'wamid.abc',
  contact_id: 7,
  phone: '15550123456',
  company_id: 3,
};

function brokerEvent(overrides: Record<string, unknown> = {}) {
  return {
    id: randomUUID(),
    event: 'message_sent',
    timestamp: '2026-11-02T10:00:00.000Z',
    company_id: 3,
    data: sentData,
    ...overrides,
  };
}

describe('event names', () => {
  test('when the catalog is listed, then it is exactly the twelve names of the published event catalog in order', () => {
    expect(EVENT_NAMES).toEqual([
      'message_received',
      'message_sent',
      'message_failed',
      'message_status_updated',
      'campaign_started',
      'campaign_completed',
      'account_status_updated',
      'phone_number_name_updated',
      'contact_created',
      'contact_updated',
      'template_approved',
      'template_rejected',
    ]);
  });

  test('when the reserved names are listed, then they are the last four of the catalog', () => {
    expect(RESERVED_EVENT_NAMES).toEqual(EVENT_NAMES.slice(8));
    expect(isReservedEventName('template_rejected')).toBe(true);
    expect(isReservedEventName('message_sent')).toBe(false);
  });

  test('when a name is not in the catalog, then EventNameSchema rejects it', () => {
    expect(EventNameSchema.safeParse('message_deleted').success).toBe(false);
  });
});

describe('WebhookEnvelopeSchema', () => {
  const envelope = { event: 'message_sent', timestamp: '2026-11-02T10:00:00Z', data: sentData };

  test('when event, timestamp and data match, then the envelope is accepted', () => {
    expect(WebhookEnvelopeSchema.parse(envelope)).toEqual(envelope);
  });

  test("when data belongs to another event, then it is rejected against the event's payload", () => {
    const data = { decision: 'APPROVED', account_status: 'active', company_id: 3 };
    expect(WebhookEnvelopeSchema.safeParse({ ...envelope, data }).success).toBe(false);
  });

  test('when the event is unknown, then the envelope is rejected', () => {
    expect(WebhookEnvelopeSchema.safeParse({ ...envelope, event: 'nope' }).success).toBe(false);
  });

  test('when the timestamp has no offset, then the envelope is rejected', () => {
    const result = WebhookEnvelopeSchema.safeParse({
      ...envelope,
      timestamp: '2026-11-02T10:00:00',
    });
    expect(result.success).toBe(false);
  });

  test('when a reserved event carries its provisional payload, then it is accepted', () => {
    const reserved = {
      event: 'template_rejected',
      timestamp: '2026-11-02T10:00:00Z',
      data: {
        template_id: 9,
        template_name: 'welcome',
        template_language: 'en_US',
        reason: 'INVALID_FORMAT',
        company_id: 3,
      },
    };
    expect(WebhookEnvelopeSchema.safeParse(reserved).success).toBe(true);
  });
});

describe('BrokerEventSchema and parseBrokerEvent', () => {
  test('when a well-formed event arrives as an object, then it is parsed', () => {
    const event = brokerEvent();
    expect(parseBrokerEvent(event)).toEqual(event);
  });

  test('when it arrives as message bytes, then it is decoded and parsed', () => {
    const event = brokerEvent();
    expect(parseBrokerEvent(Buffer.from(JSON.stringify(event)))).toEqual(event);
  });

  test('when the bytes are not JSON, then a ZodError is thrown', () => {
    expect(() => parseBrokerEvent(Buffer.from('{not json'))).toThrow(
      expect.objectContaining({ name: 'ZodError' }),
    );
  });

  test('when the id is not a UUID, then the event is rejected', () => {
    expect(BrokerEventSchema.safeParse(brokerEvent({ id: 'evt-1' })).success).toBe(false);
  });

  test('when company_id is missing, then the event is rejected', () => {
    const { company_id: _missing, ...event } = brokerEvent();
    expect(BrokerEventSchema.safeParse(event).success).toBe(false);
  });

  test("when data does not match the event's payload, then the event is rejected", () => {
    const event = brokerEvent({ data: { ...sentData, message_id: '42' } });
    expect(BrokerEventSchema.safeParse(event).success).toBe(false);
  });

  test("when a campaign's message event carries campaign_id, then the broker event is valid but the webhook envelope leaves it out", () => {
    const event = parseBrokerEvent(brokerEvent({ campaign_id: 12 }));
    expect(event.campaign_id).toBe(12);
    expect(toWebhookEnvelope(event)).not.toHaveProperty('campaign_id');
    expect(toWebhookEnvelope(event).data).not.toHaveProperty('campaign_id');
  });

  test('when it becomes a webhook envelope, then it keeps event, timestamp and data only', () => {
    const event = parseBrokerEvent(brokerEvent());
    expect(toWebhookEnvelope(event)).toEqual({
      event: 'message_sent',
      timestamp: event.timestamp,
      data: sentData,
    });
  });
});
