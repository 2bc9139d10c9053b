import type { TestSimulator } from './support/test-simulator';
import { CHANNEL, startTestSimulator, textMessage } from './support/test-simulator';

const TO = '+16505551234';
const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to: TO };

const buttons = (count: number, title = (i: number) => `Option ${i}`) =>
  Array.from({ length: count }, (_, i) => ({
    type: 'reply',
    reply: { id: `opt-${i}`, title: title(i) },
  }));

const interactive = (
  overrides: Record<string, unknown> = {},
  action = { buttons: buttons(2) },
) => ({
  ...base,
  type: 'interactive',
  interactive: { type: 'button', body: { text: 'Pick one' }, action, ...overrides },
});

describe('validating sends the way the Cloud API does', () => {
  let t: TestSimulator;
  beforeAll(async () => {
    t = await startTestSimulator({ statusDelaysMs: [] });
  });
  afterAll(() => t.stop());

  const send = (body: unknown) =>
    t.graph('POST', `/v23.0/${CHANNEL.phone_number_id}/messages`, body);

  const expectGraphError = (
    answer: { status: number; body: { error: Record<string, unknown> } },
    code: number,
    status = 400,
    details?: RegExp,
  ) => {
    expect(answer.status).toBe(status);
    expect(answer.body.error).toMatchObject({
      type: 'OAuthException',
      code,
      message: expect.stringMatching(new RegExp(`^\\(#${code}\\) `)),
      fbtrace_id: expect.any(String),
    });
    expect(answer.body.error.error_data).toMatchObject({ messaging_product: 'whatsapp' });
    if (details)
      expect((answer.body.error.error_data as { details: string }).details).toMatch(details);
  };

  it('when the text body has 4097 characters, then 100 says it must be at most 4096', async () => {
    expectGraphError(await send(textMessage(TO, 'x'.repeat(4097))), 100, 400, /at most 4096/);
  });

  it('when the text body has exactly 4096 characters, then it is accepted', async () => {
    expect((await send(textMessage(TO, 'x'.repeat(4096)))).status).toBe(200);
  });

  it('when messaging_product is missing, then 100 names it', async () => {
    const { messaging_product: _m, ...rest } = textMessage(TO, 'hi');
    expectGraphError(await send(rest), 100, 400, /messaging_product is required/);
  });

  it('when the type is unknown, then 100 lists the supported types', async () => {
    expectGraphError(
      await send({ ...base, type: 'hologram', hologram: {} }),
      100,
      400,
      /must be one of \{AUDIO/,
    );
  });

  it('when the type object is missing, then 131008 says which parameter', async () => {
    expectGraphError(await send({ ...base, type: 'image' }), 131008, 400, /image is required/);
  });

  it('when `to` is not a phone number, then 100', async () => {
    expectGraphError(await send(textMessage('not-a-number', 'hi')), 100);
  });

  it('when the recipient is the business number itself, then 131021', async () => {
    expectGraphError(await send(textMessage('15550783881', 'hi')), 131021);
  });

  it('when the body is not JSON, then a Graph error, not a crash', async () => {
    const answer = await send('{"messaging_product":');
    expectGraphError(answer, 100);
  });

  it('when an interactive message has 4 buttons, then 131009', async () => {
    expectGraphError(
      await send(interactive({}, { buttons: buttons(4) })),
      131009,
      400,
      /between 1 and 3/,
    );
  });

  it('when a button title has 21 characters, then 131009', async () => {
    expectGraphError(
      await send(interactive({}, { buttons: buttons(1, () => 'x'.repeat(21)) })),
      131009,
    );
  });

  it('when two buttons share a title, then 131009', async () => {
    expectGraphError(
      await send(interactive({}, { buttons: buttons(2, () => 'Same') })),
      131009,
      400,
      /unique/,
    );
  });

  it('when a button id has 257 characters, then 131009', async () => {
    const long = [{ type: 'reply', reply: { id: 'i'.repeat(257), title: 'Ok' } }];
    expectGraphError(await send(interactive({}, { buttons: long })), 131009);
  });

  it('when the interactive body exceeds 1024 or the footer 60 or the header 60, then 100', async () => {
    expectGraphError(await send(interactive({ body: { text: 'b'.repeat(1025) } })), 100);
    expectGraphError(await send(interactive({ footer: { text: 'f'.repeat(61) } })), 100);
    expectGraphError(
      await send(interactive({ header: { type: 'text', text: 'h'.repeat(61) } })),
      100,
    );
  });

  it('when reply buttons are within every limit, then they are accepted', async () => {
    const answer = await send(
      interactive(
        { header: { type: 'text', text: 'Workshop' }, footer: { text: 'Lucky Shrub' } },
        { buttons: buttons(3, (i) => ['Change', 'Cancel', 'Keep it'][i]!) },
      ),
    );
    expect(answer.status).toBe(200);
  });

  it('when a caption has 1025 characters, then 100', async () => {
    const body = {
      ...base,
      type: 'image',
      image: { link: 'https://example.com/a.jpg', caption: 'c'.repeat(1025) },
    };
    expectGraphError(await send(body), 100, 400, /at most 1024/);
  });

  it('when media has both id and link, or neither, then an error', async () => {
    expectGraphError(
      await send({
        ...base,
        type: 'video',
        video: { id: '123', link: 'https://example.com/v.mp4' },
      }),
      131009,
    );
    expectGraphError(await send({ ...base, type: 'audio', audio: {} }), 131008);
  });

  it('when media names an unknown id, then 100', async () => {
    expectGraphError(
      await send({ ...base, type: 'document', document: { id: '999' } }),
      100,
      400,
      /media attachment ID/,
    );
  });

  it('when every media type is sent by link, then each is accepted', async () => {
    for (const type of ['image', 'document', 'video', 'audio', 'sticker']) {
      const answer = await send({
        ...base,
        type,
        [type]: { link: `https://example.com/file-${type}` },
      });
      expect([type, answer.status]).toEqual([type, 200]);
    }
  });

  it('when a list message has 11 rows, then 131009', async () => {
    const rows = Array.from({ length: 11 }, (_, i) => ({ id: `r${i}`, title: `Row ${i}` }));
    const body = {
      ...base,
      type: 'interactive',
      interactive: {
        type: 'list',
        body: { text: 'Menu' },
        action: { button: 'Open', sections: [{ title: 'All', rows }] },
      },
    };
    expectGraphError(await send(body), 131009, 400, /between 1 and 10/);
  });

  it('when biz_opaque_callback_data exceeds 512 characters, then 100', async () => {
    expectGraphError(
      await send({ ...textMessage(TO, 'hi'), biz_opaque_callback_data: 'o'.repeat(513) }),
      100,
    );
  });

  it('when a rejected send is looked up with include_rejected, then it shows the error answer', async () => {
    await send(textMessage('+15550001111', 'y'.repeat(5000)));
    const all = await t.control('GET', '/sent?to=15550001111&include_rejected=true');
    const accepted = await t.control('GET', '/sent?to=15550001111');

    expect(accepted.body.sent).toHaveLength(0);
    expect(all.body.sent.at(-1)).toMatchObject({ accepted: false, response_status: 400 });
  });
});
