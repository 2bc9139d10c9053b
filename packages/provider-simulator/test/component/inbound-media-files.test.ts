import { createHash } from 'node:crypto';
import type { TestSimulator } from './support/test-simulator';
import { CHANNEL, startTestSimulator } from './support/test-simulator';

const USER = '16505559876';

describe('inbound media files and media faults', () => {
  let t: TestSimulator;
  beforeEach(async () => {
    t = await startTestSimulator({ statusDelaysMs: [] });
  });
  afterEach(() => t.stop());

  const inject = (body: Record<string, unknown>) =>
    t.control('POST', '/inbound', {
      phone_number_id: CHANNEL.phone_number_id,
      from: USER,
      ...body,
    });
  const mediaOf = (type: string) => {
    const value = t.receiver.received.at(-1)!.body.entry[0]!.changes[0]!.value;
    return (value.messages as Record<string, Record<string, string>>[])[0]![type]!;
  };

  it('when an image is injected with its bytes, then the webhook names them and the media id downloads exactly them with the token', async () => {
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0x00, 0x10, 0x80, 0x7f]);
    const answer = await inject({ image: { data_base64: bytes.toString('base64') } });
    expect(answer.status).toBe(200);
    const image = mediaOf('image');
    expect(image).not.toHaveProperty('data_base64');
    expect(image.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));

    const described = await t.graph('GET', `/v23.0/${image.id}`);
    expect(described.body).toMatchObject({ file_size: bytes.length, mime_type: 'image/jpeg' });
    const withoutToken = await fetch(described.body.url);
    expect(withoutToken.status).not.toBe(200);
    const download = await fetch(described.body.url, {
      headers: { authorization: `Bearer ${CHANNEL.access_token}` },
    });
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('when size_bytes is given, then the file has that size and the webhook does not carry it', async () => {
    await inject({ document: { filename: 'big.pdf', size_bytes: 2048 } });
    const document = mediaOf('document');
    expect(document).not.toHaveProperty('size_bytes');
    const described = await t.graph('GET', `/v23.0/${document.id}`);
    expect(described.body.file_size).toBe(2048);
  });

  it('when media faults are set, then the lookup and the download fail as told, count times', async () => {
    await inject({ audio: { voice: true } });
    const { id } = mediaOf('audio');
    expect(
      (await t.control('POST', '/faults', { media: 'lookup', http_status: 503, count: 1 })).status,
    ).toBe(201);
    expect(
      (await t.control('POST', '/faults', { media: 'download', http_status: 500 })).status,
    ).toBe(201);
    const failed = await t.graph('GET', `/v23.0/${id}`);
    expect(failed.status).toBe(503);
    expect(failed.body.error).toMatchObject({ code: 131000 });
    const described = await t.graph('GET', `/v23.0/${id}`);
    expect(described.status).toBe(200);
    const download = await fetch(described.body.url, {
      headers: { authorization: `Bearer ${CHANNEL.access_token}` },
    });
    expect(download.status).toBe(500);
  });
});
