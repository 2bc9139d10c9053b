import {
  ConversationsResponseSchema,
  MarkMessageReadResponseSchema,
  MessagesResponseSchema,
  SendMessageResponseSchema,
} from '@switchboard/contracts';
import { callSimulator, startE2eSystem, until, type E2eSystem } from '../support/e2e-system';

// Every message kind a business sends beyond text and buttons, a reply and a reaction, and a
// read receipt with typing: each process on its own, through the gateway, against the simulator.

jest.setTimeout(180_000);

let e2e: E2eSystem;

beforeAll(async () => {
  e2e = await startE2eSystem('e2ekinds', { SIM_STATUS_DELAYS_MS: '50,50,50' });
});

afterAll(async () => {
  await e2e?.stop();
});

const sim = (path: string, body?: unknown) => callSimulator(e2e.simulator, path, body);

describe('the other message kinds and read receipts, end to end through the gateway', () => {
  test('when a business sends a list, location, contacts, sticker, audio, a reply and a reaction and marks a message read, then the provider receives each and getMessages shows them', async () => {
    const org = await e2e.createOrganization('Kinds Co');
    const client = e2e.api(org.token);
    const phone = '393471230077';

    // The customer writes first: the reply, the reaction and the read receipt name this message.
    const injected = await sim('/inbound', {
      phone_number_id: org.channel.phone_number_id,
      from: phone,
      profile_name: 'Giulia',
      text: 'Do you have ferns?',
    });
    const contact = await until(async () => {
      const answer = await client.get('getSingleContact', { phone });
      return answer.status === 200 ? (answer.body.contact as { id: number }) : undefined;
    }, 'the contact of the customer');
    const question = await until(async () => {
      const listed = MessagesResponseSchema.parse(
        (await client.get('getMessages', { contact_id: contact.id })).body,
      );
      return listed.messages.find((m) => m.message_wamid === injected.wamid);
    }, 'the customer message in getMessages');

    const list = {
      button: 'See plants',
      sections: [
        { title: 'Ferns', rows: [{ id: 'boston', title: 'Boston fern', description: 'Shade' }] },
      ],
    };
    const card = {
      name: { formatted_name: 'Lucky Shrub Shop' },
      phones: [{ phone: '+39 02 555 0101' }],
    };
    const asks: {
      ask: Record<string, unknown>;
      expected: Record<string, unknown>;
      shown: [string, string];
    }[] = [
      {
        ask: { message: 'Pick one', list, reply_to: question.message_id },
        expected: {
          type: 'interactive',
          context: { message_id: injected.wamid },
          interactive: { type: 'list', body: { text: 'Pick one' }, action: list },
        },
        shown: ['interactive', 'Pick one'],
      },
      {
        ask: {
          location: { latitude: 45.4642, longitude: 9.19, name: 'Shop', address: 'Via Roma 1' },
        },
        expected: {
          type: 'location',
          location: { latitude: 45.4642, longitude: 9.19, name: 'Shop', address: 'Via Roma 1' },
        },
        shown: ['location', '[location] Shop, Via Roma 1'],
      },
      {
        ask: { contacts: [card] },
        expected: { type: 'contacts', contacts: [card] },
        shown: ['contacts', '[contacts] Lucky Shrub Shop'],
      },
      {
        ask: { sticker: 'https://cdn.example.com/fern.webp' },
        expected: { type: 'sticker', sticker: { link: 'https://cdn.example.com/fern.webp' } },
        shown: ['sticker', '[sticker]'],
      },
      {
        ask: { audio: 'https://cdn.example.com/hello.mp3', reply_to: question.message_id },
        expected: {
          type: 'audio',
          audio: { link: 'https://cdn.example.com/hello.mp3' },
          context: { message_id: injected.wamid },
        },
        shown: ['audio', '[audio]'],
      },
      {
        ask: { message: 'Yes, three kinds', reply_to: question.message_id },
        expected: {
          type: 'text',
          text: { body: 'Yes, three kinds' },
          context: { message_id: injected.wamid },
        },
        shown: ['text', 'Yes, three kinds'],
      },
      {
        ask: { reaction: { message_id: question.message_id, emoji: '🌿' } },
        expected: { type: 'reaction', reaction: { message_id: injected.wamid, emoji: '🌿' } },
        shown: ['reaction', '🌿'],
      },
    ];

    const sentIds: number[] = [];
    for (const { ask, expected } of asks) {
      const answer = await client.post('sendMessageToPhoneNumber', { phone, ...ask });
      expect([ask, answer.status]).toEqual([ask, 200]);
      const { message_id, message_wamid } = SendMessageResponseSchema.parse(answer.body);
      sentIds.push(message_id);
      const { sent } = await sim(`/sent?wamid=${encodeURIComponent(message_wamid)}`);
      expect(sent).toHaveLength(1);
      expect(sent[0].request).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: phone,
        biz_opaque_callback_data: expect.stringMatching(new RegExp(`^sb:${message_id}:\\d+:0$`)),
        ...expected,
      });
    }

    const listed = MessagesResponseSchema.parse(
      (await client.get('getMessages', { contact_id: contact.id, per_page: 20 })).body,
    );
    const shown = new Map(listed.messages.map((m) => [m.message_id, [m.type, m.message]]));
    expect(sentIds.map((id) => shown.get(id))).toEqual(asks.map((a) => a.shown));

    // The customer writes twice more, one after the other; the first of those is read, with
    // typing shown (the provider marks the messages before a read one read too, not after it).
    const storedIdOf = (wamid: string) =>
      until(async () => {
        const page = MessagesResponseSchema.parse(
          (await client.get('getMessages', { contact_id: contact.id })).body,
        );
        return page.messages.find((m) => m.message_wamid === wamid)?.message_id;
      }, `the customer message ${wamid} in getMessages`);
    const later = await sim('/inbound', {
      phone_number_id: org.channel.phone_number_id,
      from: phone,
      text: 'The Boston one',
    });
    const laterId = await storedIdOf(later.wamid);
    const last = await sim('/inbound', {
      phone_number_id: org.channel.phone_number_id,
      from: phone,
      text: 'Price?',
    });
    await storedIdOf(last.wamid);
    await until(async () => {
      const conversations = ConversationsResponseSchema.parse(
        (await client.get('getConversations')).body,
      ).conversations;
      return (
        conversations.find((c) => c.contact_id === contact.id)?.unread_count === 2 || undefined
      );
    }, 'two unread customer messages');

    const read = await client.post('markMessageRead', { message_id: laterId, typing: true });
    expect(read.status).toBe(200);
    expect(MarkMessageReadResponseSchema.parse(read.body)).toMatchObject({
      message_wamid: later.wamid,
      typing: true,
      unread_count: 1,
    });
    const { read_receipts } = await sim(
      `/read-receipts?message_id=${encodeURIComponent(later.wamid)}`,
    );
    expect(read_receipts).toHaveLength(1);
    expect(read_receipts[0]).toMatchObject({
      phone_number_id: org.channel.phone_number_id,
      read_receipt: { message_id: later.wamid, typing: true },
      request: {
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: later.wamid,
        typing_indicator: { type: 'text' },
      },
    });
    const after = ConversationsResponseSchema.parse((await client.get('getConversations')).body);
    expect(after.conversations.find((c) => c.contact_id === contact.id)?.unread_count).toBe(1);
  });
});
