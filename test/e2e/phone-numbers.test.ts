import {
  AddPhoneNumberResponseSchema,
  ConversationsResponseSchema,
  SendMessageResponseSchema,
} from '@switchboard/contracts';
import { callSimulator, startE2eSystem, until, type E2eSystem } from '../support/e2e-system';
import { jsonBody } from '../support/test-infra';

// An organization with two numbers, each process on its own, through the gateway, against the
// simulator: a number added by the admin API sends, receives and gets its statuses on its own URL.

jest.setTimeout(180_000);

let e2e: E2eSystem;

beforeAll(async () => {
  e2e = await startE2eSystem('e2enumbers', { SIM_STATUS_DELAYS_MS: '50,50,50' });
});

afterAll(async () => {
  await e2e?.stop();
});

const sim = (path: string, body?: unknown) => callSimulator(e2e.simulator, path, body);

test('when an admin adds a second number, then sends from it go out on it, its statuses and its customers’ messages reach the same organization, and the API names the number', async () => {
  const org = await e2e.createOrganization('Two Numbers Co');
  const client = e2e.api(org.token);
  const added = await fetch(
    `${e2e.gateway}/admin/organizations/${org.organization.company_id}/phone-numbers`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${e2e.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ send_rate_per_second: 10 }),
    },
  );
  expect(added.status).toBe(201);
  const second = AddPhoneNumberResponseSchema.parse(await jsonBody(added)).phone_number;
  expect(second.phone_number_id).not.toBe(org.channel.phone_number_id);

  const phone = '393471230088';
  const sent = await client.post('sendMessageToPhoneNumber', {
    phone,
    message: 'From the second number',
    from_phone_number_id: second.phone_number_id,
  });
  expect(sent.status).toBe(200);
  const { message_id, message_wamid } = SendMessageResponseSchema.parse(sent.body);
  const { sent: records } = await sim(`/sent?wamid=${encodeURIComponent(message_wamid)}`);
  expect(records).toHaveLength(1);
  expect(records[0].phone_number_id).toBe(second.phone_number_id);

  // The simulator's statuses come back on the second number's inbound URL.
  await until(async () => {
    const status = await client.get('getMessageStatus', { message_id });
    return status.body.message_status === 'read' ? true : undefined;
  }, 'the read status of the message sent from the second number');

  const unknown = await client.post('sendMessageToPhoneNumber', {
    phone,
    message: 'From nowhere',
    from_phone_number_id: '987654321',
  });
  expect(unknown.status).toBe(422);

  await sim('/inbound', {
    phone_number_id: second.phone_number_id,
    from: phone,
    profile_name: 'Marta',
    text: 'Answering the second number',
  });
  const conversation = await until(async () => {
    const listed = ConversationsResponseSchema.parse((await client.get('getConversations')).body);
    return listed.conversations.find(
      (c) => c.phone === phone && c.last_message.message === 'Answering the second number',
    );
  }, 'the conversation with the customer of the second number');
  expect(conversation.phone_number_id).toBe(second.phone_number_id);
  expect(conversation.last_message.phone_number_id).toBe(second.phone_number_id);
});
