import type { TestSimulator } from './support/test-simulator';
import { CHANNEL, startTestSimulator, textMessage } from './support/test-simulator';

const USER = '16505551234';

describe('injecting end-user messages with POST /sim/inbound', () => {
  let t: TestSimulator;
  beforeEach(async () => {
    t = await startTestSimulator({ statusDelaysMs: [] });
  });
  afterEach(() => t.stop());

  const inject = (body: Record<string, unknown>) =>
    t.control('POST', '/inbound', {
      phone_number_id: CHANNEL.phone_number_id,
      from: USER,
      profile_name: 'Sheena Nelson',
      ...body,
    });

  const lastMessageValue = () => t.receiver.received.at(-1)!.body.entry[0]!.changes[0]!.value;

  it('when a text with accents and emoji is injected, then a signed, ASCII-escaped messages webhook arrives', async () => {
    const answer = await inject({ text: 'Olá, é você? 👋' });

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      wamid: expect.stringMatching(/^wamid\./),
      webhook: { state: 'delivered', response_status: 200 },
    });
    const hook = t.receiver.received.at(-1)!;
    expect(hook.validSignature).toBe(true);
    expect(hook.raw).not.toMatch(/[^\x20-\x7e]/);
    expect(hook.raw).toContain('Ol\\u00e1, \\u00e9 voc\\u00ea? \\ud83d\\udc4b');
    expect(hook.body.entry[0]!.id).toBe(CHANNEL.waba_id);
    expect(lastMessageValue()).toEqual({
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550783881', phone_number_id: CHANNEL.phone_number_id },
      contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: USER }],
      messages: [
        {
          from: USER,
          id: answer.body.wamid,
          timestamp: expect.stringMatching(/^\d{10}$/),
          type: 'text',
          text: { body: 'Olá, é você? 👋' },
        },
      ],
    });
  });

  it('when an image is injected, then it carries a media id whose URL downloads with the bearer', async () => {
    await inject({ image: { caption: 'Look' } });
    const image = lastMessageValue().messages![0]!.image as Record<string, string>;

    expect(image).toMatchObject({
      caption: 'Look',
      mime_type: 'image/jpeg',
      id: expect.stringMatching(/^\d+$/),
    });
    const media = await t.graph('GET', `/v23.0/${image.id}`);
    expect(media.body).toMatchObject({
      id: image.id,
      mime_type: 'image/jpeg',
      sha256: image.sha256,
    });
    const download = await fetch(media.body.url, {
      headers: { authorization: `Bearer ${CHANNEL.access_token}` },
    });
    expect(download.status).toBe(200);
    const withoutToken = await fetch(media.body.url);
    expect(withoutToken.status).toBe(401);
  });

  it('when a button reply is injected after a send, then its context points at the business message', async () => {
    const sent = await t.graph(
      'POST',
      `/v23.0/${CHANNEL.phone_number_id}/messages`,
      textMessage(USER, 'Pick'),
    );
    await inject({ button_reply: { id: 'change-button', title: 'Change' } });

    expect(lastMessageValue().messages![0]).toMatchObject({
      context: { from: '15550783881', id: sent.body.messages[0].id },
      type: 'interactive',
      interactive: { type: 'button_reply', button_reply: { id: 'change-button', title: 'Change' } },
    });
  });

  it('when every other type is injected, then each arrives in its Cloud API shape', async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [
        { list_reply: { id: 'row-1', title: 'Row', description: 'd' } },
        {
          type: 'interactive',
          interactive: {
            type: 'list_reply',
            list_reply: { id: 'row-1', title: 'Row', description: 'd' },
          },
        },
      ],
      [
        { button: { payload: 'STOP', text: 'Stop' } },
        { type: 'button', button: { payload: 'STOP', text: 'Stop' }, context: expect.any(Object) },
      ],
      [
        { reaction: { message_id: 'wamid.X', emoji: '👍' } },
        { type: 'reaction', reaction: { message_id: 'wamid.X', emoji: '👍' } },
      ],
      [
        { location: { latitude: 38.9, longitude: -77.03, name: 'Office' } },
        { type: 'location', location: { latitude: 38.9, longitude: -77.03, name: 'Office' } },
      ],
      [
        {
          contacts: [
            { name: { formatted_name: 'Ann' }, phones: [{ phone: '+1 555', type: 'CELL' }] },
          ],
        },
        {
          type: 'contacts',
          contacts: [
            { name: { formatted_name: 'Ann' }, phones: [{ phone: '+1 555', type: 'CELL' }] },
          ],
        },
      ],
      [
        { type: 'unsupported' },
        {
          type: 'unsupported',
          unsupported: { type: 'unknown' },
          errors: [expect.objectContaining({ code: 131051 })],
        },
      ],
      [
        { document: { filename: 'invoice.pdf' } },
        {
          type: 'document',
          document: expect.objectContaining({
            filename: 'invoice.pdf',
            mime_type: 'application/pdf',
          }),
        },
      ],
      [
        { audio: { voice: true } },
        {
          type: 'audio',
          audio: expect.objectContaining({ voice: true, mime_type: 'audio/ogg; codecs=opus' }),
        },
      ],
      [
        { video: {} },
        { type: 'video', video: expect.objectContaining({ mime_type: 'video/mp4' }) },
      ],
      [
        { sticker: { animated: true } },
        {
          type: 'sticker',
          sticker: expect.objectContaining({ animated: true, mime_type: 'image/webp' }),
        },
      ],
    ];
    for (const [input, expected] of cases) {
      const answer = await inject(input);
      expect(answer.status).toBe(200);
      expect(lastMessageValue().messages![0]).toMatchObject({ from: USER, ...expected });
      expect(t.receiver.received.at(-1)!.validSignature).toBe(true);
    }
  });

  it('when the phone number is unknown or the body invalid, then the control API says so', async () => {
    const unknown = await t.control('POST', '/inbound', {
      phone_number_id: '1',
      from: USER,
      text: 'hi',
    });
    const invalid = await t.control('POST', '/inbound', {
      phone_number_id: CHANNEL.phone_number_id,
      from: 'abc',
      text: 'hi',
    });

    expect(unknown.status).toBe(404);
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ status: 'error', code: 'validation_failed' });
  });
});
