import type { TestSimulator } from './support/test-simulator';
import { CHANNEL, startTestSimulator, textMessage } from './support/test-simulator';

// Lists, locations, contact cards, reactions, stickers, audio, replies and read receipts: each
// accepted in Meta's documented shape, and each malformed one refused with Meta's error.

const USER = '16505551234';
const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to: USER };

const list = (action: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  ...base,
  type: 'interactive',
  interactive: { type: 'list', body: { text: 'Our menu' }, action, ...extra },
});
const rows = (count: number, prefix = 'r') =>
  Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, title: `Row ${i}` }));

describe('the other message kinds and read receipts, as the Cloud API takes them', () => {
  let t: TestSimulator;
  beforeAll(async () => {
    t = await startTestSimulator({ statusDelaysMs: [10, 10, 10] });
  });
  afterAll(() => t.stop());

  const send = (body: unknown) =>
    t.graph('POST', `/v23.0/${CHANNEL.phone_number_id}/messages`, body);
  const userWrites = async (from = USER): Promise<string> => {
    const answer = await t.control('POST', '/inbound', {
      phone_number_id: CHANNEL.phone_number_id,
      from,
      text: 'hello',
    });
    expect(answer.status).toBe(200);
    return answer.body.wamid as string;
  };
  const expectError = (
    answer: { status: number; body: { error: { code: number; error_data?: { details: string } } } },
    code: number,
    details: RegExp,
  ) => {
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(code);
    expect(answer.body.error.error_data?.details).toMatch(details);
  };

  it('when a list breaks a limit, then 131009 or 100 names it', async () => {
    const eleven = [
      { title: 'A', rows: rows(6) },
      { title: 'B', rows: rows(5, 'b') },
    ];
    expectError(await send(list({ button: 'Open', sections: eleven })), 131009, /between 1 and 10/);
    const sections = Array.from({ length: 11 }, (_, i) => ({ title: `S${i}`, rows: rows(0) }));
    expectError(await send(list({ button: 'Open', sections })), 131009, /Sections count is 11/);
    expectError(
      await send(list({ button: 'b'.repeat(21), sections: [{ rows: rows(1) }] })),
      131009,
      /button'\] must be at most 20/,
    );
    expectError(
      await send(
        list({ button: 'Open', sections: [{ rows: [{ id: 'x', title: 't'.repeat(25) }] }] }),
      ),
      131009,
      /title'\] must be at most 24/,
    );
    expectError(
      await send(
        list({
          button: 'Open',
          sections: [{ rows: [{ id: 'x', title: 't', description: 'd'.repeat(73) }] }],
        }),
      ),
      131009,
      /description'\] must be at most 72/,
    );
    expectError(
      await send(list({ button: 'Open', sections: [{ rows: rows(1) }, { rows: rows(1, 'q') }] })),
      131008,
      /title'\] is required/,
    );
    expectError(
      await send(list({ button: 'Open', sections: [{ rows: [...rows(1), ...rows(1)] }] })),
      131009,
      /not unique/,
    );
  });

  it('when a list has a text header it is accepted, and with an image header 100 says its header is text only', async () => {
    const answer = await send(
      list(
        {
          button: 'See options',
          sections: [
            {
              title: 'Plants',
              rows: rows(6).map((row) => ({ ...row, description: 'd'.repeat(72) })),
            },
            { title: 'Pots', rows: rows(4, 'p') },
          ],
        },
        { header: { type: 'text', text: 'Lucky Shrub' }, footer: { text: 'Tap to pick' } },
      ),
    );
    expect(answer.status).toBe(200);
    const withImage = await send(
      list(
        { button: 'Open', sections: [{ rows: rows(1) }] },
        { header: { type: 'image', image: { link: 'https://example.com/a.jpg' } } },
      ),
    );
    expectError(withImage, 100, /must be one of \{TEXT\}/);
  });

  it('when a location is in range (numbers or numeric strings) it is accepted, and out of range, not a number or missing a coordinate an error names it', async () => {
    for (const location of [
      {
        latitude: 37.44216,
        longitude: -122.16153,
        name: 'Philz Coffee',
        address: '101 Forest Ave',
      },
      { latitude: '-33.8688', longitude: '151.2093' },
    ]) {
      expect((await send({ ...base, type: 'location', location })).status).toBe(200);
    }
    expectError(
      await send({ ...base, type: 'location', location: { latitude: 91, longitude: 0 } }),
      131009,
      /latitude'\] must be between -90 and 90/,
    );
    expectError(
      await send({ ...base, type: 'location', location: { latitude: 0, longitude: 'east' } }),
      100,
      /longitude'\] must be a number/,
    );
    expectError(
      await send({ ...base, type: 'location', location: { latitude: 0 } }),
      131008,
      /longitude'\] is required/,
    );
  });

  it('when contact cards carry every vCard field they are accepted, and malformed ones an error names the field', async () => {
    const card = {
      name: { formatted_name: 'Barbara Johnson', first_name: 'Barbara', last_name: 'Johnson' },
      birthday: '1999-01-23',
      phones: [{ phone: '+1 (940) 555-1234', type: 'HOME', wa_id: '19405551234' }],
      emails: [{ email: 'bj@example.com', type: 'WORK' }],
      addresses: [{ street: '1 Hacker Way', city: 'Menlo Park', country_code: 'US', type: 'WORK' }],
      org: { company: 'Lucky Shrub', title: 'Manager' },
      urls: [{ url: 'https://www.luckyshrub.com', type: 'WORK' }],
    };
    expect((await send({ ...base, type: 'contacts', contacts: [card] })).status).toBe(200);
    const named = { name: { formatted_name: 'A' } };
    expectError(
      await send({ ...base, type: 'contacts', contacts: [{ ...named, birthday: '23/01/1999' }] }),
      131009,
      /birthday'\] must be a date/,
    );
    expectError(
      await send({ ...base, type: 'contacts', contacts: [{ ...named, phones: ['+1 555'] }] }),
      131009,
      /phones'\]\[0\] must be a JSON object/,
    );
    expectError(
      await send({ ...base, type: 'contacts', contacts: Array(258).fill(named) }),
      131009,
      /between 1 and 257/,
    );
  });

  it('when a reaction names a message the user sent, then it is accepted and only `sent` follows', async () => {
    const received = await userWrites();
    const answer = await send({
      ...base,
      type: 'reaction',
      reaction: { message_id: received, emoji: '👍🏽' },
    });
    expect(answer.status).toBe(200);
    const wamid = answer.body.messages[0].id as string;
    await t.receiver.waitFor('messages', (v) => v.statuses?.[0]?.id === wamid);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const { sent } = (await t.control('GET', `/sent?wamid=${encodeURIComponent(wamid)}`)).body;
    expect(sent[0].statuses.map((s: { status: string }) => s.status)).toEqual(['sent']);
  });

  it('when a reaction is not one emoji, or names no wamid, then 131009 says so', async () => {
    const received = await userWrites();
    expectError(
      await send({ ...base, type: 'reaction', reaction: { message_id: received, emoji: 'ok' } }),
      131009,
      /single emoji/,
    );
    expectError(
      await send({ ...base, type: 'reaction', reaction: { message_id: '42', emoji: '👍' } }),
      131009,
      /wamid/,
    );
  });

  it('when a reaction names a message outside the conversation, then it is accepted and fails with 131009', async () => {
    const elsewhere = await userWrites('16505559999');
    const answer = await send({
      ...base,
      type: 'reaction',
      reaction: { message_id: elsewhere, emoji: '❤️' },
    });
    expect(answer.status).toBe(200);
    const wamid = answer.body.messages[0].id as string;
    const [hook] = await t.receiver.waitFor(
      'messages',
      (v) => v.statuses?.[0]?.id === wamid && v.statuses[0].status === 'failed',
    );
    const { value } = hook!.body.entry[0]!.changes[0]!;
    const [status] = value.statuses as unknown as { errors: { code: number }[] }[];
    expect(status!.errors[0]!.code).toBe(131009);
  });

  it('when a sticker and an audio are sent by link, and a sticker by an uploaded WebP, then each is accepted', async () => {
    for (const type of ['sticker', 'audio']) {
      const answer = await send({ ...base, type, [type]: { link: `https://example.com/${type}` } });
      expect(answer.status).toBe(200);
    }
    const form = new FormData();
    form.append('messaging_product', 'whatsapp');
    form.append('type', 'image/webp');
    form.append('file', new Blob([Buffer.from('RIFF0000WEBP')], { type: 'image/webp' }), 's.webp');
    const upload = await fetch(`${t.url}/v23.0/${CHANNEL.phone_number_id}/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CHANNEL.access_token}` },
      body: form,
    });
    const { id } = (await upload.json()) as { id: string };
    expect((await send({ ...base, type: 'sticker', sticker: { id } })).status).toBe(200);
  });

  it('when any message carries a context, then it must name a wamid', async () => {
    const received = await userWrites();
    const reply = { ...textMessage(USER, 'Yes, in blue'), context: { message_id: received } };
    expect((await send(reply)).status).toBe(200);
    expectError(
      await send({ ...textMessage(USER, 'hi'), context: { message_id: '17' } }),
      131009,
      /context\['message_id'\] must be a WhatsApp message id/,
    );
  });

  it('when a received message is marked read with typing, then /sim/read-receipts shows it', async () => {
    const received = await userWrites();
    const answer = await send({
      messaging_product: 'whatsapp',
      status: 'read',
      message_id: received,
      typing_indicator: { type: 'text' },
    });
    expect(answer.body).toEqual({ success: true });

    const receipts = await t.control(
      'GET',
      `/read-receipts?message_id=${encodeURIComponent(received)}`,
    );
    expect(receipts.body.read_receipts).toEqual([
      expect.objectContaining({
        kind: 'mark_read',
        phone_number_id: CHANNEL.phone_number_id,
        read_receipt: { message_id: received, typing: true },
        response_status: 200,
      }),
    ]);
  });

  it('when an unknown or outgoing message is marked read, then 131009 and no receipt is listed', async () => {
    const outgoing = (await send(textMessage(USER, 'hi'))).body.messages[0].id as string;
    for (const message_id of [outgoing, 'wamid.NOTKNOWN']) {
      const answer = await send({ messaging_product: 'whatsapp', status: 'read', message_id });
      expectError(answer, 131009, /only incoming messages can be marked as read/);
      const listed = await t.control(
        'GET',
        `/read-receipts?message_id=${encodeURIComponent(message_id)}`,
      );
      expect(listed.body.read_receipts).toEqual([]);
    }
  });
});
