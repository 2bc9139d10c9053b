import {
  MarkMessageReadResponseSchema,
  MessagesResponseSchema,
  SendMessageResponseSchema,
  monthKey,
} from '@switchboard/contracts';
import {
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type MessagingSystem,
  type Organization,
} from '../support/messaging-harness';

// List menus, locations, contact cards, reactions, stickers, audio, replies and read receipts
// through the messaging API: what the provider receives, what getMessages shows, and every
// broken limit refused before anything is sent or counted.

jest.setTimeout(90_000);

let system: MessagingSystem;
let org: Organization;

beforeAll(async () => {
  system = await startMessagingSystem('msgkinds');
  org = await system.newOrganization('standard', 'Kinds Co');
});

afterAll(async () => {
  await system?.stop();
});

afterEach(async () => {
  await system.sim('DELETE', '/faults');
});

async function sentRequest(wamid: string): Promise<Record<string, unknown>> {
  const { sent } = await system.sim('GET', `/sent?wamid=${encodeURIComponent(wamid)}`);
  expect(sent).toHaveLength(1);
  return sent[0].request as Record<string, unknown>;
}

async function quotaUsed(): Promise<number> {
  const quota = await system.stack.messaging.db
    .collection<{ _id: string; used: number }>('message_quotas')
    .findOne({ _id: `${org.company_id}:${monthKey()}` });
  return quota?.used ?? 0;
}

async function callsTo(phone: string): Promise<number> {
  const { sent } = await system.sim('GET', `/sent?to=${phone}&include_rejected=true`);
  return (sent as unknown[]).length;
}

async function storedMessage(phone: string, message_id: number) {
  const contact = await org.api.get('getSingleContact', { phone });
  const listed = await org.api.get('getMessages', { contact_id: contact.body.contact.id });
  const { messages } = MessagesResponseSchema.parse(listed.body);
  return messages.find((message) => message.message_id === message_id)!;
}

/** A customer writes in: the message_id and wamid of what they sent. */
async function customerWrites(phone: string, text = 'Do you deliver?') {
  const received = await system.customerWrites(org, { from: phone, text });
  return { message_id: received.data.message_id, wamid: received.data.message_wamid };
}

const list = {
  button: 'See plants',
  sections: [
    {
      title: 'Indoor',
      rows: [
        { id: 'fern', title: 'Boston fern', description: 'Likes shade' },
        { id: 'pothos', title: 'Pothos' },
      ],
    },
    { title: 'Outdoor', rows: [{ id: 'lavender', title: 'Lavender' }] },
  ],
};

describe('sending the other message kinds', () => {
  test('when a list is sent, then the provider gets an interactive list and getMessages shows its body', async () => {
    const phone = uniquePhone();
    const sent = await org.api.post('sendMessageToPhoneNumber', {
      phone,
      message: 'Which plant?',
      header: 'Lucky Shrub',
      footer: 'Tap to choose',
      list,
    });
    expect(sent.status).toBe(200);
    const { message_id, message_wamid } = SendMessageResponseSchema.parse(sent.body);
    expect(await sentRequest(message_wamid)).toMatchObject({
      to: phone,
      type: 'interactive',
      interactive: {
        type: 'list',
        header: { type: 'text', text: 'Lucky Shrub' },
        body: { text: 'Which plant?' },
        footer: { text: 'Tap to choose' },
        action: list,
      },
    });
    expect(await storedMessage(phone, message_id)).toMatchObject({
      type: 'interactive',
      message: 'Which plant?',
    });
  });

  test('when a location, contact cards, a sticker and an audio are sent, then each reaches the provider in its Cloud API shape', async () => {
    const phone = uniquePhone();
    const card = {
      name: { formatted_name: 'Barbara Johnson', first_name: 'Barbara' },
      phones: [{ phone: '+1 940 555 1234', type: 'WORK' }],
      emails: [{ email: 'barbara@example.com', type: 'WORK' }],
      birthday: '1990-02-28',
    };
    const cases = [
      {
        ask: { location: { latitude: '37.44216', longitude: -122.16153, name: 'Philz Coffee' } },
        type: 'location',
        object: { location: { latitude: 37.44216, longitude: -122.16153, name: 'Philz Coffee' } },
        shown: '[location] Philz Coffee',
      },
      {
        ask: { contacts: [card] },
        type: 'contacts',
        object: { contacts: [card] },
        shown: '[contacts] Barbara Johnson',
      },
      {
        ask: { sticker: 'https://cdn.example.com/leaf.webp' },
        type: 'sticker',
        object: { sticker: { link: 'https://cdn.example.com/leaf.webp' } },
        shown: '[sticker]',
      },
      {
        ask: { audio: 'https://cdn.example.com/hello.ogg' },
        type: 'audio',
        object: { audio: { link: 'https://cdn.example.com/hello.ogg' } },
        shown: '[audio]',
      },
    ];
    for (const { ask, type, object, shown } of cases) {
      const sent = await org.api.post('sendMessageToPhoneNumber', { phone, ...ask });
      expect([type, sent.status]).toEqual([type, 200]);
      expect(await sentRequest(sent.body.message_wamid)).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: phone,
        type,
        ...object,
        biz_opaque_callback_data: expect.stringMatching(
          new RegExp(`^sb:${sent.body.message_id}:\\d+:0$`),
        ),
      });
      expect(await storedMessage(phone, sent.body.message_id)).toMatchObject({
        type,
        message: shown,
      });
    }
  });

  test('when a customer message is answered with reply_to and reacted to, then the provider gets its wamid as context and reaction target', async () => {
    const phone = uniquePhone();
    const question = await customerWrites(phone);

    const reply = await org.api.post('sendMessageToPhoneNumber', {
      phone,
      message: 'Yes, every Tuesday',
      reply_to: question.message_id,
    });
    expect(reply.status).toBe(200);
    expect(await sentRequest(reply.body.message_wamid)).toMatchObject({
      context: { message_id: question.wamid },
      text: { body: 'Yes, every Tuesday' },
    });

    const media = await org.api.post('sendmedia', {
      phone,
      type: 'sticker',
      url: 'https://cdn.example.com/ok.webp',
      reply_to: question.message_id,
    });
    expect(media.status).toBe(200);
    expect(await sentRequest(media.body.message_wamid)).toMatchObject({
      type: 'sticker',
      context: { message_id: question.wamid },
    });

    const reaction = await org.api.post('sendMessageToPhoneNumber', {
      phone,
      reaction: { message_id: question.message_id, emoji: '👍' },
    });
    expect(reaction.status).toBe(200);
    expect(await sentRequest(reaction.body.message_wamid)).toMatchObject({
      type: 'reaction',
      reaction: { message_id: question.wamid, emoji: '👍' },
    });
    expect(await storedMessage(phone, reaction.body.message_id)).toMatchObject({
      type: 'reaction',
      message: '👍',
    });
  });
});

describe('refusing what the provider would refuse, before anything is sent or counted', () => {
  const rows = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ id: `r${i}`, title: `Row ${i}` }));
  const withList = (action: Record<string, unknown>) => ({ message: 'Menu', list: action });

  const refusals: [string, Record<string, unknown>, RegExp][] = [
    [
      'a list with 11 rows',
      withList({
        button: 'Open',
        sections: [
          { title: 'A', rows: rows(6) },
          { title: 'B', rows: rows(5).map((r) => ({ ...r, id: `b${r.id}` })) },
        ],
      }),
      /list\.sections: must have at most 10 rows/,
    ],
    [
      'a list with 11 sections',
      withList({
        button: 'Open',
        sections: Array.from({ length: 11 }, (_, i) => ({ title: `S${i}`, rows: rows(1) })),
      }),
      /list\.sections: must be at most 10 sections/,
    ],
    [
      'a list button of 21 characters',
      withList({ button: 'b'.repeat(21), sections: [{ rows: rows(1) }] }),
      /list\.button: must be at most 20 characters/,
    ],
    [
      'a row title of 25 characters',
      withList({ button: 'Open', sections: [{ rows: [{ id: 'x', title: 't'.repeat(25) }] }] }),
      /list\.sections\.0\.rows\.0\.title: must be at most 24 characters/,
    ],
    [
      'a row description of 73 characters',
      withList({
        button: 'Open',
        sections: [{ rows: [{ id: 'x', title: 'X', description: 'd'.repeat(73) }] }],
      }),
      /description: must be at most 72 characters/,
    ],
    [
      'a row id of 201 characters',
      withList({ button: 'Open', sections: [{ rows: [{ id: 'i'.repeat(201), title: 'X' }] }] }),
      /rows\.0\.id: must be at most 200 characters/,
    ],
    [
      'a section title of 25 characters',
      withList({ button: 'Open', sections: [{ title: 's'.repeat(25), rows: rows(1) }] }),
      /sections\.0\.title: must be at most 24 characters/,
    ],
    [
      'two sections, one untitled',
      withList({
        button: 'Open',
        sections: [{ title: 'A', rows: rows(1) }, { rows: [{ id: 'z', title: 'Z' }] }],
      }),
      /sections\.1\.title: is required when there are several sections/,
    ],
    [
      'two rows with one id',
      withList({ button: 'Open', sections: [{ rows: [...rows(1), ...rows(1)] }] }),
      /row ids must be unique/,
    ],
    [
      'a list without a body',
      { list: { button: 'Open', sections: [{ rows: rows(1) }] } },
      /message: is required \(the list body\)/,
    ],
    [
      'a list with an image header',
      {
        ...withList({ button: 'Open', sections: [{ rows: rows(1) }] }),
        image: 'https://x.example.com/a.png',
      },
      /image: a list message has a text header only/,
    ],
    [
      'a latitude of 91',
      { location: { latitude: 91, longitude: 0 } },
      /location\.latitude: must be between -90 and 90/,
    ],
    [
      'a longitude of "east"',
      { location: { latitude: 0, longitude: 'east' } },
      /location\.longitude/,
    ],
    [
      'a location with a text',
      { message: 'Here', location: { latitude: 1, longitude: 2 } },
      /message: not shown with location/,
    ],
    ['no contact card', { contacts: [] }, /contacts: must have at least one contact card/],
    [
      'a card without formatted_name',
      { contacts: [{ name: { first_name: 'Ana' } }] },
      /contacts\.0\.name\.formatted_name/,
    ],
    [
      'a birthday not as YYYY-MM-DD',
      { contacts: [{ name: { formatted_name: 'Ana' }, birthday: '28/02/1990' }] },
      /contacts\.0\.birthday: must be a date as YYYY-MM-DD/,
    ],
    [
      'a reaction that is a word',
      { reaction: { message_id: 1, emoji: 'ok' } },
      /reaction\.emoji: must be one emoji/,
    ],
    [
      'a reaction of two emojis',
      { reaction: { message_id: 1, emoji: '👍👍' } },
      /reaction\.emoji: must be one emoji/,
    ],
    [
      'a reaction sent as a reply',
      { reaction: { message_id: 1, emoji: '👍' }, reply_to: 1 },
      /reply_to: a reaction names its message itself/,
    ],
    [
      'a sticker and a location at once',
      { sticker: 'https://x.example.com/s.webp', location: { latitude: 1, longitude: 2 } },
      /one kind of message at a time/,
    ],
    [
      'a footer on an audio',
      { audio: 'https://x.example.com/a.ogg', footer: 'Hi' },
      /footer: not shown with audio/,
    ],
    ['a sticker that is not a URL', { sticker: 'leaf.webp' }, /sticker: must be an http\(s\) URL/],
  ];

  test.each(refusals)(
    'when %s is asked, then 422 names it and nothing is sent or counted',
    async (_, ask, message) => {
      const phone = uniquePhone();
      const used = await quotaUsed();
      const answer = await org.api.post('sendMessageToPhoneNumber', { phone, ...ask });
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({
        status: 'error',
        message: expect.stringMatching(message),
      });
      expect(await callsTo(phone)).toBe(0);
      expect(await quotaUsed()).toBe(used);
    },
  );

  test('when a reply or a reaction names a message that is not in this conversation, then 422 names it and nothing is sent or counted', async () => {
    const phone = uniquePhone();
    const other = uniquePhone();
    const theirs = await customerWrites(other);
    const reaction = await org.api.post('sendMessageToPhoneNumber', {
      phone,
      reaction: { message_id: theirs.message_id, emoji: '👍' },
    });
    const ownPhone = uniquePhone();
    const ours = await customerWrites(ownPhone);
    const firstReaction = await org.api.post('sendMessageToPhoneNumber', {
      phone: ownPhone,
      reaction: { message_id: ours.message_id, emoji: '❤️' },
    });
    expect(firstReaction.status).toBe(200);
    const used = await quotaUsed();
    const calls = await callsTo(ownPhone);

    const answers = [
      reaction,
      await org.api.post('sendMessageToPhoneNumber', {
        phone,
        message: 'Hi',
        reply_to: theirs.message_id,
      }),
      await org.api.post('sendMessageToPhoneNumber', {
        phone,
        message: 'Hi',
        reply_to: 999_999_999,
      }),
      await org.api.post('sendmedia', {
        phone,
        type: 'audio',
        url: 'https://x.example.com/a.ogg',
        reply_to: theirs.message_id,
      }),
      await org.api.post('sendMessageToPhoneNumber', {
        phone: ownPhone,
        reaction: { message_id: firstReaction.body.message_id, emoji: '😀' },
      }),
    ];
    expect(answers.map((answer) => [answer.status, answer.body.message])).toEqual([
      [
        422,
        `reaction.message_id: message ${theirs.message_id} is not in the conversation with this phone`,
      ],
      [422, `reply_to: message ${theirs.message_id} is not in the conversation with this phone`],
      [422, 'reply_to: no message 999999999 in this organization'],
      [422, `reply_to: message ${theirs.message_id} is not in the conversation with this phone`],
      [422, 'reaction.message_id: a reaction cannot be reacted to'],
    ]);
    expect(await callsTo(phone)).toBe(0);
    expect(await callsTo(ownPhone)).toBe(calls);
    expect(await quotaUsed()).toBe(used);
  });

  test('when a reply names a message the provider refused, then 422 says it never reached the provider', async () => {
    const phone = uniquePhone();
    await system.sim('POST', '/faults', { to: phone, error_code: 131009, count: 1 });
    const refused = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'First' });
    expect(refused.status).toBe(422);
    const answer = await org.api.post('sendMessageToPhoneNumber', {
      phone,
      message: 'Second',
      reply_to: refused.body.message_id,
    });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toBe(
      `reply_to: message ${refused.body.message_id} never reached the provider`,
    );
  });
});

describe('markMessageRead', () => {
  async function unreadCount(phone: string): Promise<number> {
    const listed = await org.api.get('getConversations', { per_page: 100 });
    const conversation = (
      listed.body.conversations as { phone: string; unread_count: number }[]
    ).find((c) => c.phone === phone);
    return conversation?.unread_count ?? -1;
  }

  test('when the second of three customer messages is marked read with typing, then the provider gets the receipt and one stays unread', async () => {
    const phone = uniquePhone();
    await customerWrites(phone, 'one');
    const second = await customerWrites(phone, 'two');
    await customerWrites(phone, 'three');
    await waitFor(
      async () => ((await unreadCount(phone)) === 3 ? true : undefined),
      10_000,
      'three unread',
    );

    const answer = await org.api.post('markMessageRead', {
      message_id: second.message_id,
      typing: true,
    });
    expect(answer.status).toBe(200);
    expect(MarkMessageReadResponseSchema.parse(answer.body)).toEqual({
      status: 'success',
      message_id: second.message_id,
      message_wamid: second.wamid,
      contact_id: expect.any(Number),
      typing: true,
      unread_count: 1,
    });
    const { read_receipts } = await system.sim(
      'GET',
      `/read-receipts?message_id=${encodeURIComponent(second.wamid)}`,
    );
    expect(read_receipts).toHaveLength(1);
    expect(read_receipts[0].request).toEqual({
      messaging_product: 'whatsapp',
      status: 'read',
      message_id: second.wamid,
      typing_indicator: { type: 'text' },
    });
    expect(await unreadCount(phone)).toBe(1);
  });

  test('when a message the business sent or an unknown one is named, then 422 or 404 and no receipt', async () => {
    const phone = uniquePhone();
    const sent = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Hello' });
    const ours = await org.api.post('markMessageRead', { message_id: sent.body.message_id });
    expect(ours.status).toBe(422);
    expect(ours.body.message).toMatch(/^message_id: only a message the contact sent/);
    const unknown = await org.api.post('markMessageRead', { message_id: 999_999_998 });
    expect(unknown.status).toBe(404);
    const { read_receipts } = await system.sim(
      'GET',
      `/read-receipts?message_id=${encodeURIComponent(sent.body.message_wamid)}&include_rejected=true`,
    );
    expect(read_receipts).toHaveLength(0);
  });

  test('when the provider refuses the receipt, then its error is answered and the message stays unread', async () => {
    const phone = uniquePhone();
    const question = await customerWrites(phone);
    await waitFor(
      async () => ((await unreadCount(phone)) === 1 ? true : undefined),
      10_000,
      'unread',
    );
    await system.sim('POST', '/faults', { type: 'mark_read', error_code: 131005, count: 1 });

    const answer = await org.api.post('markMessageRead', { message_id: question.message_id });
    expect(answer.status).toBe(502);
    expect(answer.body).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/131005/),
    });
    expect(await unreadCount(phone)).toBe(1);
  });
});
