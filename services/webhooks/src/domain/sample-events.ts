import type { EventData, EventName, WebhookEnvelope } from '@switchboard/contracts';

type Samples = { [E in EventName]: (companyId: number, now: string) => EventData<E> };

const PHONE = '15550001234';

/** What `POST /{id}/test` sends: plausible, schema-valid data, recognisable as a test. */
const SAMPLES: Samples = {
  message_received: (company_id) => ({
    message_id: 1,
    message_wamid: 'wamid.TEST_MESSAGE_RECEIVED',
    contact_id: 1,
    contact_name: 'Test Contact',
    phone: PHONE,
    message: 'This is a test event from Switchboard',
    message_type: 'text',
    company_id,
  }),
  message_sent: (company_id) => ({
    message_id: 1,
    message_wamid: 'wamid.TEST_MESSAGE_SENT',
    contact_id: 1,
    phone: PHONE,
    company_id,
  }),
  message_failed: (company_id) => ({
    message_id: 1,
    contact_id: 1,
    phone: PHONE,
    error: 'This is a test event from Switchboard',
    company_id,
  }),
  message_status_updated: (company_id) => ({
    message_id: 1,
    message_wamid: 'wamid.TEST_MESSAGE_STATUS',
    status: 'delivered',
    error: null,
    contact_id: 1,
    company_id,
  }),
  campaign_started: (_company_id, now) => ({
    id: 1,
    name: 'Test campaign',
    total_contacts: 1,
    created_at: now,
  }),
  campaign_completed: (_company_id, now) => ({
    id: 1,
    name: 'Test campaign',
    total_contacts: 1,
    completed_at: now,
  }),
  account_status_updated: (company_id) => ({
    decision: 'APPROVED',
    account_status: 'active',
    company_id,
  }),
  phone_number_name_updated: (company_id) => ({
    decision: 'APPROVED',
    phone_number: PHONE,
    requested_name: 'Test Business',
    rejection_reason: null,
    company_id,
  }),
  contact_created: (company_id) => ({
    contact_id: 1,
    name: 'Test Contact',
    phone: PHONE,
    email: null,
    company_id,
  }),
  contact_updated: (company_id) => ({
    contact_id: 1,
    name: 'Test Contact',
    phone: PHONE,
    email: 'test@example.com',
    company_id,
  }),
  template_approved: (company_id) => ({
    template_id: 1,
    template_name: 'test_template',
    template_language: 'en_US',
    reason: null,
    company_id,
  }),
  template_rejected: (company_id) => ({
    template_id: 1,
    template_name: 'test_template',
    template_language: 'en_US',
    reason: 'This is a test event from Switchboard',
    company_id,
  }),
};

export function sampleEnvelope(event: EventName, companyId: number, now: Date): WebhookEnvelope {
  const timestamp = now.toISOString();
  const data = SAMPLES[event](companyId, timestamp);
  return { event, timestamp, data } as WebhookEnvelope;
}
