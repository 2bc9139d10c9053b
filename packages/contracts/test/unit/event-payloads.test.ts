import type { z } from 'zod';
import {
  AccountStatusUpdatedDataSchema,
  CampaignCompletedDataSchema,
  CampaignStartedDataSchema,
  EVENT_PAYLOAD_SCHEMAS,
  MessageFailedDataSchema,
  MessageReceivedDataSchema,
  MessageSentDataSchema,
  MessageStatusUpdatedDataSchema,
  PhoneNumberNameUpdatedDataSchema,
  type EventName,
} from '../../src';

interface PayloadCase {
  event: EventName;
  schema: z.ZodType;
  example: Record<string, unknown>;
  integerField: string;
  timestampField?: string;
}

// One valid example per published event payload.
const CASES: PayloadCase[] = [
  {
    event: 'message_received',
    schema: MessageReceivedDataSchema,
    example: {
      message_id: 41,
      message_wamid: 'wamid.HBgLMTU1NTAxMjM0NTY',
      contact_id: 7,
      contact_name: 'Ada Lovelace',
      phone: '15550123456',
      message: 'Hello',
      message_type: 'text',
      company_id: 3,
    },
    integerField: 'message_id',
  },
  {
    event: 'message_sent',
    schema: MessageSentDataSchema,
    example: {
      message_id: 42,
      message_wamid: 'wamid.abc',
      contact_id: 7,
      phone: '15550123456',
      company_id: 3,
    },
    integerField: 'contact_id',
  },
  {
    event: 'message_failed',
    schema: MessageFailedDataSchema,
    example: {
      message_id: 43,
      contact_id: 7,
      phone: '15550123456',
      error: '(#131026) Message undeliverable',
      company_id: 3,
    },
    integerField: 'company_id',
  },
  {
    event: 'message_status_updated',
    schema: MessageStatusUpdatedDataSchema,
    example: {
      message_id: 42,
      message_wamid: 'wamid.abc',
      status: 'delivered',
      error: null,
      contact_id: 7,
      company_id: 3,
    },
    integerField: 'message_id',
  },
  {
    event: 'campaign_started',
    schema: CampaignStartedDataSchema,
    example: {
      id: 5,
      name: 'Spring sale',
      total_contacts: 120,
      created_at: '2026-03-01T09:00:00Z',
    },
    integerField: 'id',
    timestampField: 'created_at',
  },
  {
    event: 'campaign_completed',
    schema: CampaignCompletedDataSchema,
    example: {
      id: 5,
      name: 'Spring sale',
      total_contacts: 120,
      completed_at: '2026-03-01T09:05:00.123+01:00',
    },
    integerField: 'total_contacts',
    timestampField: 'completed_at',
  },
  {
    event: 'account_status_updated',
    schema: AccountStatusUpdatedDataSchema,
    example: { decision: 'APPROVED', account_status: 'active', company_id: 3 },
    integerField: 'company_id',
  },
  {
    event: 'phone_number_name_updated',
    schema: PhoneNumberNameUpdatedDataSchema,
    example: {
      decision: 'REJECTED',
      phone_number: '15550123456',
      requested_name: 'Acme Support',
      rejection_reason: 'Name does not match the business',
      company_id: 3,
    },
    integerField: 'company_id',
  },
];

describe.each(CASES)(
  '$event payload',
  ({ event, schema, example, integerField, timestampField }) => {
    test('when the published example is parsed, then it is accepted unchanged', () => {
      expect(schema.parse(example)).toEqual(example);
    });

    test('when it is the schema registered for the event, then EVENT_PAYLOAD_SCHEMAS returns it', () => {
      expect(EVENT_PAYLOAD_SCHEMAS[event]).toBe(schema);
    });

    test('when an integer id arrives as a string, then it is rejected', () => {
      expect(schema.safeParse({ ...example, [integerField]: '42' }).success).toBe(false);
    });

    test('when an integer id is a float, then it is rejected', () => {
      expect(schema.safeParse({ ...example, [integerField]: 4.2 }).success).toBe(false);
    });

    test.each(Object.keys(example))('when %s is missing, then it is rejected', (field) => {
      const { [field]: _missing, ...rest } = example;
      expect(schema.safeParse(rest).success).toBe(false);
    });

    test('when a field the spec does not list is added, then it is rejected', () => {
      expect(schema.safeParse({ ...example, extra: 'x' }).success).toBe(false);
    });

    if (timestampField) {
      test('when the timestamp has no UTC offset, then it is rejected', () => {
        expect(
          schema.safeParse({ ...example, [timestampField]: '2026-03-01T09:00:00' }).success,
        ).toBe(false);
      });

      test('when the timestamp is not a date-time at all, then it is rejected', () => {
        expect(schema.safeParse({ ...example, [timestampField]: 'yesterday' }).success).toBe(false);
      });
    }
  },
);

describe('nullable fields', () => {
  test('when message_status_updated carries an error string, then it is accepted', () => {
    const data = { ...CASES[3]!.example, status: 'failed', error: 'Re-engagement window closed' };
    expect(MessageStatusUpdatedDataSchema.safeParse(data).success).toBe(true);
  });

  test('when a message status is outside sent, delivered, read, failed, then it is rejected', () => {
    const data = { ...CASES[3]!.example, status: 'queued' };
    expect(MessageStatusUpdatedDataSchema.safeParse(data).success).toBe(false);
  });

  test('when a phone number name is approved without a reason, then rejection_reason is null', () => {
    const data = { ...CASES[7]!.example, decision: 'APPROVED', rejection_reason: null };
    expect(PhoneNumberNameUpdatedDataSchema.parse(data).rejection_reason).toBeNull();
  });

  test('when message_failed has a null error, then it is rejected (the spec says string)', () => {
    expect(MessageFailedDataSchema.safeParse({ ...CASES[2]!.example, error: null }).success).toBe(
      false,
    );
  });
});
