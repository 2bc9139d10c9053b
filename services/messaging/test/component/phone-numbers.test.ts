import {
  AddPhoneNumberResponseSchema,
  ConversationsResponseSchema,
  ListPhoneNumbersResponseSchema,
  MessagesResponseSchema,
  SendMessageResponseSchema,
  type AddedPhoneNumber,
} from '@switchboard/contracts';
import {
  eventsOf,
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type MessagingSystem,
  type Organization,
} from '../support/messaging-harness';

jest.setTimeout(90_000);

let system: MessagingSystem;
let org: Organization;
let other: Organization;
let second: AddedPhoneNumber;

/**
 * The gateway's admin API for an organization's numbers, as the gateway forwards it to messaging
 * (`/admin/organizations/{id}/phone-numbers` → `/internal/channels/{id}/numbers`).
 */
async function admin(method: string, path: string, body?: unknown) {
  const internalPath = path.replace(
    /^\/admin\/organizations\/(\d+)\/phone-numbers$/,
    '/internal/channels/$1/numbers',
  );
  return system.messagingAdmin(method, internalPath, body);
}

/** The number the provider got a message on (the simulator records each send's number). */
async function sentFrom(wamid: string): Promise<string> {
  const { sent } = await system.sim('GET', `/sent?wamid=${encodeURIComponent(wamid)}`);
  expect(sent).toHaveLength(1);
  return String(sent[0].phone_number_id);
}

beforeAll(async () => {
  system = await startMessagingSystem('phonenumbers');
  org = await system.newOrganization('standard', 'Two Numbers Co');
  other = await system.newOrganization('standard', 'Other Co');
  const added = await admin('POST', `/admin/organizations/${org.company_id}/phone-numbers`, {
    display_phone_number: '15550001234',
    send_rate_per_second: 20,
  });
  expect(added.status).toBe(201);
  second = AddPhoneNumberResponseSchema.parse(added.body).phone_number;
});

afterAll(async () => {
  await system?.stop();
});

test('when an admin adds a number, then it has its own id, inbound URL, secrets and send rate, and is listed after the default one', async () => {
  const first = org.created.channel;
  expect(second.phone_number_id).not.toBe(first.phone_number_id);
  expect(second.inbound_url).not.toBe(first.inbound_url);
  expect(second.app_secret).not.toBe(first.app_secret);
  expect(second.verify_token).not.toBe(first.verify_token);
  expect(second).toMatchObject({
    display_phone_number: '15550001234',
    send_rate_per_second: 20,
    is_default: false,
  });

  const listed = await admin('GET', `/admin/organizations/${org.company_id}/phone-numbers`);
  expect(listed.status).toBe(200);
  const { phone_numbers } = ListPhoneNumbersResponseSchema.parse(listed.body);
  expect(phone_numbers.map((one) => [one.phone_number_id, one.is_default])).toEqual([
    [first.phone_number_id, true],
    [second.phone_number_id, false],
  ]);
  expect(phone_numbers[0]!.send_rate_per_second).toBe(80);
  // The provider knows the new number, and verifies the new inbound URL with its own token.
  const { channels } = await system.sim('GET', '/channels');
  expect(
    (channels as { phone_number_id: string }[]).some(
      (channel) => channel.phone_number_id === second.phone_number_id,
    ),
  ).toBe(true);
  const handshake = await fetch(
    `${second.inbound_url}?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(second.verify_token)}&hub.challenge=ok42`,
  );
  expect(handshake.status).toBe(200);
  expect(await handshake.text()).toBe('ok42');

  const missing = await admin('POST', '/admin/organizations/999999999/phone-numbers', {});
  expect(missing.status).toBe(404);
});

test('when sends name a number or none, then each goes out from that number (the first by default) and its events and messages name it', async () => {
  const phone = uniquePhone();
  const byDefault = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'from one' });
  const fromSecond = await org.api.post('sendMessageToPhoneNumber', {
    phone,
    message: 'from two',
    from_phone_number_id: second.phone_number_id,
  });
  const mediaFromSecond = await org.api.post('sendmedia', {
    phone,
    type: 'image',
    url: 'https://example.com/cat.jpg',
    from_phone_number_id: second.phone_number_id,
  });
  for (const answer of [byDefault, fromSecond, mediaFromSecond]) expect(answer.status).toBe(200);
  const one = SendMessageResponseSchema.parse(byDefault.body);
  const two = SendMessageResponseSchema.parse(fromSecond.body);
  const three = SendMessageResponseSchema.parse(mediaFromSecond.body);

  expect(await sentFrom(one.message_wamid)).toBe(org.created.channel.phone_number_id);
  expect(await sentFrom(two.message_wamid)).toBe(second.phone_number_id);
  expect(await sentFrom(three.message_wamid)).toBe(second.phone_number_id);

  // The provider's statuses of the second number come back through its own inbound URL.
  await waitFor(
    () =>
      eventsOf(system.events, 'message_status_updated', two.message_id).length >= 3
        ? true
        : undefined,
    15_000,
    'statuses of the second number',
  );
  for (const event of [
    ...eventsOf(system.events, 'message_sent', two.message_id),
    ...eventsOf(system.events, 'message_status_updated', two.message_id),
  ]) {
    expect(event).toMatchObject({
      company_id: org.company_id,
      phone_number_id: second.phone_number_id,
    });
  }
  const [sentOne] = eventsOf(system.events, 'message_sent', one.message_id);
  expect(sentOne).toMatchObject({ phone_number_id: org.created.channel.phone_number_id });
  expect(system.invalidEvents).toEqual([]);

  const contact_id = (sentOne!.data as { contact_id: number }).contact_id;
  const { messages } = MessagesResponseSchema.parse(
    (await org.api.get('getMessages', { contact_id })).body,
  );
  expect(messages.find((m) => m.message_id === two.message_id)?.phone_number_id).toBe(
    second.phone_number_id,
  );
  expect(messages.find((m) => m.message_id === one.message_id)?.phone_number_id).toBe(
    org.created.channel.phone_number_id,
  );
});

test('when a send names a number the organization does not have, or another organization’s, then it is refused with 422 and nothing is sent', async () => {
  const before = (await system.sim('GET', '/sent')).sent.length;
  const unknown = await org.api.post('sendMessageToPhoneNumber', {
    phone: uniquePhone(),
    message: 'nope',
    from_phone_number_id: '123456789',
  });
  expect(unknown.status).toBe(422);
  expect(unknown.body).toMatchObject({ status: 'error', code: 'validation_failed' });
  expect(String(unknown.body.message)).toContain('from_phone_number_id');

  const foreign = await other.api.post('sendtemplatemessage', {
    phone: uniquePhone(),
    template_name: 'hello_world',
    template_language: 'en_US',
    from_phone_number_id: second.phone_number_id,
  });
  expect(foreign.status).toBe(422);
  expect(String(foreign.body.message)).toContain('from_phone_number_id');
  const foreignText = await other.api.post('sendMessageToPhoneNumber', {
    phone: uniquePhone(),
    message: 'nope',
    from_phone_number_id: org.created.channel.phone_number_id,
  });
  expect(foreignText.status).toBe(422);
  expect((await system.sim('GET', '/sent')).sent.length).toBe(before);
});

test('when a customer writes to the second number, then the message lands in the same organization and names that number', async () => {
  const from = uniquePhone();
  const received = await system.customerWrites(org, {
    from,
    text: 'hi second',
    phone_number_id: second.phone_number_id,
  });
  expect(received).toMatchObject({
    company_id: org.company_id,
    phone_number_id: second.phone_number_id,
    data: { company_id: org.company_id, message: 'hi second' },
  });
  const onFirst = await system.customerWrites(org, { from: uniquePhone(), text: 'hi first' });
  expect(onFirst).toMatchObject({ phone_number_id: org.created.channel.phone_number_id });

  const listed = await org.api.get('getConversations');
  const { conversations } = ConversationsResponseSchema.parse(listed.body);
  const conversation = conversations.find((c) => c.phone === from);
  expect(conversation).toMatchObject({
    phone_number_id: second.phone_number_id,
    last_message: { message: 'hi second', phone_number_id: second.phone_number_id },
  });
  // The other organization sees nothing of it.
  const theirs = ConversationsResponseSchema.parse(
    (await other.api.get('getConversations')).body,
  ).conversations;
  expect(theirs.some((c) => c.phone === from)).toBe(false);
});

test('when a customer sends a photo to the second number, then the file is fetched with that number’s credentials and message_received names the number', async () => {
  const bytes = Buffer.from('a photo sent to the second number');
  const event = await system.customerWrites(
    org,
    {
      from: uniquePhone(),
      phone_number_id: second.phone_number_id,
      image: { caption: 'Photo', data_base64: bytes.toString('base64') },
    },
    20_000,
  );
  expect(event).toMatchObject({
    company_id: org.company_id,
    phone_number_id: second.phone_number_id,
  });
  expect(event.data.media).toMatchObject({
    type: 'image',
    status: 'available',
    size: bytes.length,
  });
});
