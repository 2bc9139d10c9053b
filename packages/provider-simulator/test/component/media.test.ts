import { createHash } from 'node:crypto';
import type { TestSimulator } from './support/test-simulator';
import { CHANNEL, startTestSimulator } from './support/test-simulator';

describe('media upload and retrieval', () => {
  let t: TestSimulator;
  beforeAll(async () => {
    t = await startTestSimulator({ statusDelaysMs: [] });
  });
  afterAll(() => t.stop());

  const upload = (fields: {
    file?: Blob;
    type?: string;
    messaging_product?: string;
    filename?: string;
  }) => {
    const form = new FormData();
    if (fields.messaging_product !== undefined)
      form.set('messaging_product', fields.messaging_product);
    if (fields.file) form.set('file', fields.file, fields.filename ?? 'file.bin');
    if (fields.type !== undefined) form.set('type', fields.type);
    return fetch(`${t.url}/v23.0/${CHANNEL.phone_number_id}/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CHANNEL.access_token}` },
      body: form,
    });
  };

  it('when a PNG is uploaded, then GET /{media_id} describes it and its URL returns the bytes', async () => {
    const bytes = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const uploaded = await upload({
      messaging_product: 'whatsapp',
      file: new Blob([bytes], { type: 'image/png' }),
      type: 'image/png',
      filename: 'logo.png',
    });
    const { id } = (await uploaded.json()) as { id: string };

    expect(uploaded.status).toBe(200);
    expect(id).toMatch(/^\d+$/);
    const described = await t.graph(
      'GET',
      `/v23.0/${id}?phone_number_id=${CHANNEL.phone_number_id}`,
    );
    expect(described.body).toEqual({
      messaging_product: 'whatsapp',
      url: expect.stringMatching(
        /^http:\/\/127\.0\.0\.1:\d+\/whatsapp_business\/attachments\/\?mid=/,
      ),
      mime_type: 'image/png',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      file_size: bytes.length,
      id,
    });
    const download = await fetch(described.body.url, {
      headers: { authorization: `Bearer ${CHANNEL.access_token}` },
    });
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
    expect(download.headers.get('content-type')).toBe('image/png');

    const sent = await t.graph('POST', `/v23.0/${CHANNEL.phone_number_id}/messages`, {
      messaging_product: 'whatsapp',
      to: '16505551234',
      type: 'image',
      image: { id, caption: 'Our logo' },
    });
    expect(sent.status).toBe(200);
  });

  it('when an unsupported type is uploaded, then 131053', async () => {
    const answer = await upload({
      messaging_product: 'whatsapp',
      file: new Blob(['x'], { type: 'application/zip' }),
      type: 'application/zip',
    });

    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { code: number } }).error.code).toBe(131053);
  });

  it('when an image is over 5 MB, then 131053', async () => {
    const big = new Blob([Buffer.alloc(5 * 1024 * 1024 + 1)], { type: 'image/jpeg' });
    const answer = await upload({ messaging_product: 'whatsapp', file: big, type: 'image/jpeg' });

    expect(((await answer.json()) as { error: { code: number } }).error.code).toBe(131053);
  });

  it('when messaging_product, file or type is missing, then 100', async () => {
    const file = new Blob(['x'], { type: 'text/plain' });
    for (const fields of [
      { file, type: 'text/plain' },
      { messaging_product: 'whatsapp', type: 'text/plain' },
      { messaging_product: 'whatsapp', file },
    ]) {
      const answer = await upload(fields);
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: { code: number } }).error.code).toBe(100);
    }
  });

  it('when media is deleted, then it can no longer be read', async () => {
    const uploaded = await upload({
      messaging_product: 'whatsapp',
      file: new Blob(['hello'], { type: 'text/plain' }),
      type: 'text/plain',
    });
    const { id } = (await uploaded.json()) as { id: string };

    const deleted = await t.graph('DELETE', `/v23.0/${id}`);
    const read = await t.graph('GET', `/v23.0/${id}`);

    expect(deleted.body).toEqual({ success: true });
    expect(read.body.error).toMatchObject({ code: 100, error_subcode: 33 });
  });

  it('when a document id is sent as an image, then it is accepted and fails asynchronously with 131053', async () => {
    await t.stop();
    t = await startTestSimulator({ statusDelaysMs: [10] });
    const uploaded = await upload({
      messaging_product: 'whatsapp',
      file: new Blob(['%PDF'], { type: 'application/pdf' }),
      type: 'application/pdf',
    });
    const { id } = (await uploaded.json()) as { id: string };

    const sent = await t.graph('POST', `/v23.0/${CHANNEL.phone_number_id}/messages`, {
      messaging_product: 'whatsapp',
      to: '16505551234',
      type: 'image',
      image: { id },
    });
    const wamid = sent.body.messages[0].id;
    const [hook] = await t.receiver.waitFor('messages', (v) => v.statuses?.[0]?.id === wamid);

    expect(hook!.body.entry[0]!.changes[0]!.value.statuses![0]).toMatchObject({
      status: 'failed',
      errors: [{ code: 131053 }],
    });
  });
});
