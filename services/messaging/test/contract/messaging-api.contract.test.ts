import {
  AccountStatusResponseSchema,
  BrokerEventSchema,
  ConversationsResponseSchema,
  ErrorResponseSchema,
  EVENT_PAYLOAD_SCHEMAS,
  MessageStatusResponseSchema,
  MessagesResponseSchema,
  SendMessageResponseSchema,
  WebhookEnvelopeSchema,
  buildOpenApiDocument,
  toWebhookEnvelope,
  operationsServedBy,
  type EventName,
} from '@switchboard/contracts';
import {
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type MessagingSystem,
  type Organization,
} from '../support/messaging-harness';

jest.setTimeout(60_000);

let system: MessagingSystem;
let org: Organization;

beforeAll(async () => {
  system = await startMessagingSystem('msgcontract');
  org = await system.newOrganization('standard', 'Contract Co');
});

afterAll(async () => {
  await system?.stop();
});

describe('messaging responses and events match packages/contracts', () => {
  test('when each operation answers, then its body parses with its contract schema', async () => {
    const phone = uniquePhone();
    const sent = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Contract' });
    const { message_id } = SendMessageResponseSchema.parse(sent.body);
    SendMessageResponseSchema.parse(
      (
        await org.api.post('sendmedia', {
          phone,
          type: 'image',
          url: 'https://example.com/a.jpg',
        })
      ).body,
    );
    const contact_id = (await org.api.get('getSingleContact', { phone })).body.contact.id as number;
    await waitFor(async () =>
      (await org.api.get('getMessageStatus', { message_id })).body.message_status === 'read'
        ? true
        : undefined,
    );
    MessageStatusResponseSchema.parse((await org.api.get('getMessageStatus', { message_id })).body);
    MessagesResponseSchema.parse((await org.api.get('getMessages', { contact_id })).body);
    ConversationsResponseSchema.parse((await org.api.get('getConversations')).body);
    AccountStatusResponseSchema.parse((await org.api.get('accountStatus')).body);
  });

  test('when an operation fails, then the body is the error envelope', async () => {
    const failures = [
      await org.api.post('sendMessageToPhoneNumber', { phone: 'x', message: 'x' }),
      await org.api.get('getMessageStatus', { message_id: 987654321 }),
      await org.api.post('sendtemplatemessage', {
        phone: uniquePhone(),
        template_name: 'missing_template',
        template_language: 'en',
      }),
      await org.api.post('deleteTemplate', { name: 'missing_template' }),
      // The provider refuses this one: it is stored as failed and publishes message_failed.
      await (async () => {
        const phone = uniquePhone();
        await system.sim('POST', '/faults', { to: phone, error_code: 131026, count: 1 });
        return org.api.post('sendMessageToPhoneNumber', { phone, message: 'Undeliverable' });
      })(),
    ];
    for (const failure of failures) {
      expect(failure.status).toBeGreaterThanOrEqual(400);
      ErrorResponseSchema.parse(failure.body);
    }
    expect(failures.map((failure) => failure.status)).toEqual([422, 404, 404, 404, 422]);
  });

  test('when inbound messages and account decisions arrive, then their events parse with the strict payload schemas', async () => {
    const phoneNumberId = org.created.channel.phone_number_id;
    await system.sim('POST', '/inbound', {
      phone_number_id: phoneNumberId,
      from: uniquePhone(),
      profile_name: 'Contract Tester',
      text: 'hello',
    });
    await system.sim('POST', '/account-update', {
      phone_number_id: phoneNumberId,
      decision: 'APPROVED',
    });
    await system.sim('POST', '/name-update', {
      phone_number_id: phoneNumberId,
      decision: 'APPROVED',
    });
    const wanted: EventName[] = [
      'message_sent',
      'message_status_updated',
      'message_failed',
      'message_received',
      'account_status_updated',
      'phone_number_name_updated',
    ];
    await waitFor(
      () =>
        wanted.every((name) => system.events.some((e) => e.event === name)) ? true : undefined,
      10_000,
      'one event of each kind',
    );
    for (const event of system.events) {
      BrokerEventSchema.parse(event);
      EVENT_PAYLOAD_SCHEMAS[event.event].parse(event.data);
      expect(event.company_id).toBe((event.data as { company_id: number }).company_id);
    }
    expect(system.invalidEvents).toEqual([]);
  });

  test('when an end user taps a button, then message_received carries the button id beside data and the webhook payload stays as the spec has it', async () => {
    const event = await system.customerWrites(org, {
      from: uniquePhone(),
      button_reply: { id: 'yes_please', title: 'Yes please' },
    });
    expect(BrokerEventSchema.parse(event)).toMatchObject({ reply_id: 'yes_please' });
    expect(event.data.message).toBe('Yes please');
    const envelope = toWebhookEnvelope(event);
    expect(Object.keys(envelope).sort()).toEqual(['data', 'event', 'timestamp']);
    WebhookEnvelopeSchema.parse(envelope);
    expect(system.invalidEvents).toEqual([]);
  });

  test('when the OpenAPI document is built, then every messaging operation is in it with each method it is served with', () => {
    const document = buildOpenApiDocument();
    const served = operationsServedBy('messaging');
    expect(served.map((operation) => operation.name)).toEqual(
      expect.arrayContaining(['sendMessageToPhoneNumber', 'getMessages', 'deleteTemplate']),
    );
    for (const operation of served) {
      expect(Object.keys(document.paths[operation.path] ?? {}).sort()).toEqual(
        [...operation.methods].sort(),
      );
    }
  });
});
