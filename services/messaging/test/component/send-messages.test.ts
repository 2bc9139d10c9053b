import {
  INTERNAL_SECRET_HEADER,
  MessageStatusResponseSchema,
  SendMessageResponseSchema,
  orgHeaders,
} from '@switchboard/contracts';
import {
  eventsOf,
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
  system = await startMessagingSystem('msgsend');
  org = await system.newOrganization('standard', 'Send Co');
});

afterAll(async () => {
  await system?.stop();
});

/** What the simulator received for a wamid: the exact Cloud API request body. */
async function sentRequest(wamid: string): Promise<Record<string, unknown>> {
  const { sent } = await system.sim('GET', `/sent?wamid=${encodeURIComponent(wamid)}`);
  expect(sent).toHaveLength(1);
  return sent[0].request as Record<string, unknown>;
}

describe('sendMessageToPhoneNumber (the published REST API)', () => {
  test('when a text is sent, then the provider gets a Cloud API text and the status reaches read', async () => {
    const phone = uniquePhone();
    const sent = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Hello Ana' });
    expect(sent.status).toBe(200);
    const { message_id, message_wamid } = SendMessageResponseSchema.parse(sent.body);

    expect(await sentRequest(message_wamid)).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: phone,
      type: 'text',
      text: { body: 'Hello Ana' },
      biz_opaque_callback_data: expect.stringMatching(new RegExp(`^sb:${message_id}:\\d+:0$`)),
    });

    const read = await waitFor(
      async () => {
        const status = await org.api.get('getMessageStatus', { message_id });
        return status.body.message_status === 'read' ? status.body : undefined;
      },
      10_000,
      'status read',
    );
    const parsed = MessageStatusResponseSchema.parse(read);
    expect(parsed.message_wamid).toBe(message_wamid);
    expect(parsed.error).toBeNull();
    for (const status of ['sent', 'delivered', 'read'] as const) {
      expect(parsed.status_times[status]).not.toBeNull();
    }
    expect(parsed.status_times.failed).toBeNull();

    // One message_sent, one message_status_updated per status reached.
    await waitFor(
      () =>
        eventsOf(system.events, 'message_status_updated', message_id).length >= 3
          ? true
          : undefined,
      5_000,
      'status events',
    );
    expect(eventsOf(system.events, 'message_sent', message_id)).toHaveLength(1);
    expect(
      eventsOf(system.events, 'message_status_updated', message_id).map(
        (event) => (event.data as { status: string }).status,
      ),
    ).toEqual(['sent', 'delivered', 'read']);
    const [messageSent] = eventsOf(system.events, 'message_sent', message_id);
    expect(messageSent!.data).toEqual({
      message_id,
      message_wamid,
      contact_id: expect.any(Number),
      phone,
      company_id: org.company_id,
    });
  });

  test("when a new organization's first sends of the month arrive together, then every one is sent", async () => {
    const fresh = await system.newOrganization('standard', 'First Month Co');
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        fresh.api.post('sendMessageToPhoneNumber', { phone: uniquePhone(), message: `First ${i}` }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(200));
  });

  test('when buttons are given, then an interactive reply-buttons message is sent', async () => {
    const phone = uniquePhone();
    const sent = await org.api.post('sendMessageToPhoneNumber', {
      phone,
      message: 'Pick one',
      header: 'Menu',
      footer: 'Thanks',
      buttons: ['Yes', { id: 'no-id', title: 'No' }],
    });
    expect(sent.status).toBe(200);
    expect(await sentRequest(sent.body.message_wamid)).toMatchObject({
      to: phone,
      type: 'interactive',
      interactive: {
        type: 'button',
        header: { type: 'text', text: 'Menu' },
        body: { text: 'Pick one' },
        footer: { text: 'Thanks' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'Yes', title: 'Yes' } },
            { type: 'reply', reply: { id: 'no-id', title: 'No' } },
          ],
        },
      },
    });
  });

  test('when an image URL is given without buttons, then an image with the text as caption is sent', async () => {
    const sent = await org.api.post('sendMessageToPhoneNumber', {
      phone: uniquePhone(),
      message: 'Our new menu',
      image: 'https://example.com/menu.jpg',
    });
    expect(sent.status).toBe(200);
    expect(await sentRequest(sent.body.message_wamid)).toMatchObject({
      type: 'image',
      image: { link: 'https://example.com/menu.jpg', caption: 'Our new menu' },
    });
  });

  test('when input breaks a provider limit, then 422 names the field and nothing is sent', async () => {
    const before = (await system.sim('GET', '/sent?include_rejected=true')).sent.length;
    const cases = [
      { phone: 'abc', message: 'x' },
      { phone: uniquePhone(), message: '' },
      { phone: uniquePhone(), message: 'x', buttons: ['a', 'b', 'c', 'd'] },
      { phone: uniquePhone(), message: 'x', buttons: ['a'.repeat(21)] },
      { phone: uniquePhone(), message: 'x'.repeat(1025), buttons: ['ok'] },
      { phone: { $gt: '' }, message: 'x' },
    ];
    for (const body of cases) {
      const answer = await org.api.post('sendMessageToPhoneNumber', body);
      expect(answer.status).toBe(422);
      expect(answer.body.status).toBe('error');
    }
    expect((await system.sim('GET', '/sent?include_rejected=true')).sent.length).toBe(before);
  });
});

describe('a send request as it arrives on the wire', () => {
  /** POSTs raw bytes to the text send, as the gateway forwards a customer's call. */
  async function postRaw(body: string, headers: Record<string, string> = {}) {
    const response = await fetch(`${system.stack.messaging.url}/api/svc/sendMessageToPhoneNumber`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [INTERNAL_SECRET_HEADER]: system.internalSecret,
        ...orgHeaders(org.api.organization),
        ...headers,
      },
      body,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  const refusal = (status: number, code: string, message: string) => ({
    status,
    body: { status: 'error', code, message },
  });

  test('when its body is not a JSON object, holds text that cannot be stored, or lacks the internal secret, then it is refused with the envelope every route answers, and nothing is sent', async () => {
    const phone = uniquePhone();
    const notJson = refusal(400, 'malformed_json', 'Request body is not valid JSON');
    expect(await postRaw('{"phone":')).toEqual(notJson);
    expect(await postRaw('"just a string"')).toEqual(notJson);
    expect(await postRaw('null')).toEqual(notJson);
    expect(await postRaw('[]')).toEqual(
      refusal(422, 'validation_failed', 'body: must be a JSON object, not an array'),
    );
    expect(await postRaw(JSON.stringify({ phone, message: 'a\u0000b' }))).toEqual(
      refusal(422, 'validation_failed', 'message: must not contain NUL characters (U+0000)'),
    );
    expect(
      await postRaw(JSON.stringify({ phone, message: 'Hi' }), {
        [INTERNAL_SECRET_HEADER]: 'wrong',
      }),
    ).toEqual(refusal(403, 'forbidden', 'This route is internal'));
    // Not JSON and no secret: the body is judged first, as express' parser does.
    expect(await postRaw('{', { [INTERNAL_SECRET_HEADER]: 'wrong' })).toEqual(notJson);
    const { sent } = await system.sim('GET', `/sent?to=${phone}`);
    expect(sent).toEqual([]);
  });

  test('when its JSON starts with a byte order mark or it comes as a form, then it is sent like any other', async () => {
    for (const [body, contentType] of [
      [
        `\ufeff${JSON.stringify({ phone: uniquePhone(), message: 'With a mark' })}`,
        'application/json',
      ],
      [`phone=${uniquePhone()}&message=As+a+form`, 'application/x-www-form-urlencoded'],
    ] as const) {
      const answer = await postRaw(body, { 'content-type': contentType });
      expect(answer.status).toBe(200);
      expect(SendMessageResponseSchema.parse(answer.body).status).toBe('success');
    }
  });
});

describe('sendtemplatemessage and sendmedia', () => {
  test('when a template is sent, then name, language and components reach the provider', async () => {
    const waba_id = system.simulator.state.channels.get(org.created.channel.phone_number_id)!
      .registration.waba_id;
    await system.sim('POST', '/templates', {
      waba_id,
      name: 'order_update',
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Hello {{1}}', example: { body_text: [['Ana']] } }],
    });
    // Made at the provider outside Switchboard: a refresh adopts it.
    const listed = await org.api.get('getTemplates', { refresh: 1 });
    expect(listed.body.templates).toEqual([
      expect.objectContaining({ name: 'order_update', language: 'en_US', status: 'APPROVED' }),
    ]);
    const components = [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }] }];
    const sent = await org.api.post('sendtemplatemessage', {
      phone: uniquePhone(),
      template_name: 'order_update',
      template_language: 'en_US',
      components,
    });
    expect(sent.status).toBe(200);
    expect(await sentRequest(sent.body.message_wamid)).toMatchObject({
      type: 'template',
      template: { name: 'order_update', language: { code: 'en_US' }, components },
    });
  });

  test('when the template does not exist, then it is refused with 404 and the provider is not called', async () => {
    const before = (await system.sim('GET', '/sent?include_rejected=true')).sent.length;
    const sent = await org.api.post('sendtemplatemessage', {
      phone: uniquePhone(),
      template_name: 'no_such_template',
      template_language: 'en_US',
    });
    expect(sent.status).toBe(404);
    expect(sent.body).toMatchObject({
      status: 'error',
      code: 'not_found',
      message: 'template_name: no template no_such_template in en_US',
    });
    expect((await system.sim('GET', '/sent?include_rejected=true')).sent.length).toBe(before);
  });

  test('when media is sent by URL, then the provider gets a link', async () => {
    const sent = await org.api.post('sendmedia', {
      phone: uniquePhone(),
      type: 'document',
      url: 'https://example.com/invoice.pdf',
      caption: 'Your invoice',
      filename: 'invoice.pdf',
    });
    expect(sent.status).toBe(200);
    expect(await sentRequest(sent.body.message_wamid)).toMatchObject({
      type: 'document',
      document: {
        link: 'https://example.com/invoice.pdf',
        caption: 'Your invoice',
        filename: 'invoice.pdf',
      },
    });
  });

  test('when a file is posted as multipart, then it is uploaded to the provider and sent by id', async () => {
    const form = new FormData();
    form.append('phone', uniquePhone());
    form.append('type', 'image');
    form.append('caption', 'A photo');
    // A tiny PNG: the provider checks type and size.
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    form.append('file', new Blob([png], { type: 'image/png' }), 'photo.png');
    const sent = await org.api.multipart('sendmedia', form);
    expect(sent.status).toBe(200);
    const request = await sentRequest(sent.body.message_wamid);
    expect(request).toMatchObject({
      type: 'image',
      image: { id: expect.any(String), caption: 'A photo' },
    });
  });

  test('when neither url nor file is given, then 422 names url', async () => {
    const answer = await org.api.post('sendmedia', { phone: uniquePhone(), type: 'image' });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toContain('url');
  });
});
