import { createHash } from 'node:crypto';
import { MessageReceivedDataSchema } from '@switchboard/contracts';
import {
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type ApiClient,
  type MessagingSystem,
  type Organization,
} from '../support/messaging-harness';

jest.setTimeout(90_000);

let system: MessagingSystem;
let org: Organization;
let other: Organization;

beforeAll(async () => {
  system = await startMessagingSystem('msgmedia', {
    messagingEnv: {
      INBOUND_MEDIA_RETRY_BASE_MS: '100',
      INBOUND_MEDIA_MAX_ATTEMPTS: '3',
      INBOUND_MEDIA_TIMEOUT_MS: '1500',
      INBOUND_MEDIA_SWEEP_MS: '100',
    },
  });
  org = await system.newOrganization('standard', 'Photo Co');
  other = await system.newOrganization('standard', 'Other Co');
});

afterAll(async () => {
  await system?.stop();
});

afterEach(async () => {
  await system.sim('DELETE', '/faults');
});

const bytesOf = (text: string) => Buffer.from(text, 'utf8');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Fetches a descriptor's URL for an organization, as the gateway forwards its server's call. */
async function download(url: string, api: ApiClient) {
  const response = await api.fetchPublic(url);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    disposition: response.headers.get('content-disposition'),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

describe('inbound media', () => {
  test('when a contact sends an image, then it is fetched with the channel token, kept, described in message_received and getMessages, and served to the organization', async () => {
    const bytes = bytesOf(`a JPEG, honestly ${Date.now()}`);
    const event = await system.customerWrites(org, {
      from: uniquePhone(),
      image: { caption: 'My receipt', data_base64: bytes.toString('base64') },
    });
    expect(MessageReceivedDataSchema.parse(event.data)).toBeTruthy();
    expect(event.data).toMatchObject({
      message: 'My receipt',
      message_type: 'image',
      media: {
        type: 'image',
        mime_type: 'image/jpeg',
        size: bytes.length,
        status: 'available',
        filename: null,
        sha256: sha256(bytes),
        url: `${system.publicUrl}/api/svc/getMedia?media_id=${event.data.message_id}`,
      },
    });

    const fetched = await download(event.data.media!.url!, org.api);
    expect(fetched.status).toBe(200);
    expect(fetched.type).toBe('image/jpeg');
    expect(fetched.disposition).toMatch(/^inline/);
    expect(fetched.bytes.equals(bytes)).toBe(true);

    const messages = await org.api.get('getMessages', { contact_id: event.data.contact_id });
    expect(messages.body.messages[0]).toMatchObject({
      id: event.data.message_id,
      type: 'image',
      media: event.data.media,
    });
  });

  test('when another organization asks for the file, or an id that is no file, then it gets 404', async () => {
    const event = await system.customerWrites(org, {
      from: uniquePhone(),
      document: { filename: 'invoice.pdf', data_base64: bytesOf('%PDF-1.4 x').toString('base64') },
    });
    expect(event.data.media).toMatchObject({ type: 'document', filename: 'invoice.pdf' });
    const mine = await download(event.data.media!.url!, org.api);
    expect(mine.status).toBe(200);
    expect(mine.disposition).toMatch(/^attachment; filename="invoice.pdf"/);

    const theirs = await download(event.data.media!.url!, other.api);
    expect(theirs.status).toBe(404);
    expect(JSON.parse(theirs.bytes.toString())).toMatchObject({ status: 'error' });

    const text = await system.customerWrites(org, { from: uniquePhone(), text: 'no file' });
    expect(text.data.media).toBeUndefined();
    const none = await org.api.get('getMedia', { media_id: text.data.message_id });
    expect(none.status).toBe(404);
  });

  test('when a file is over its kind size limit, then it is not kept and message_received says too_large', async () => {
    const event = await system.customerWrites(org, {
      from: uniquePhone(),
      sticker: { size_bytes: 600 * 1024 },
    });
    expect(event.data.media).toMatchObject({
      type: 'sticker',
      status: 'too_large',
      size: 600 * 1024,
      url: null,
    });
    const answer = await org.api.get('getMedia', { media_id: event.data.message_id });
    expect(answer.status).toBe(404);
  });

  test('when the provider fails the download twice, then the fetch is retried and the file kept', async () => {
    await system.sim('POST', '/faults', { media: 'download', http_status: 500, count: 2 });
    const bytes = bytesOf('voice note');
    const event = await system.customerWrites(
      org,
      { from: uniquePhone(), audio: { voice: true, data_base64: bytes.toString('base64') } },
      20_000,
    );
    expect(event.data.media).toMatchObject({ type: 'audio', status: 'available' });
    const fetched = await download(event.data.media!.url!, org.api);
    expect(fetched.bytes.equals(bytes)).toBe(true);
  });

  test('when the provider keeps failing or hanging, then the attempts are bounded and message_received still comes, saying failed', async () => {
    await system.sim('POST', '/faults', { media: 'lookup', latency_ms: 2_500, count: 1 });
    await system.sim('POST', '/faults', { media: 'lookup', http_status: 503 });
    const event = await system.customerWrites(
      org,
      { from: uniquePhone(), video: { caption: 'look' } },
      30_000,
    );
    expect(event.data).toMatchObject({
      message: 'look',
      media: { type: 'video', status: 'failed', url: null, size: null },
    });
    const answer = await org.api.get('getMedia', { media_id: event.data.message_id });
    expect(answer.status).toBe(404);
  });

  test('when a slow download is in progress, then a text message sent after it is received at once', async () => {
    await system.sim('POST', '/faults', { media: 'download', latency_ms: 1_200, count: 1 });
    const from = uniquePhone();
    await system.sim('POST', '/inbound', {
      phone_number_id: org.created.channel.phone_number_id,
      from,
      image: {},
    });
    const text = await system.customerWrites(org, { from, text: 'hello?' });
    const image = await waitFor(
      () =>
        system.events.find(
          (e) =>
            e.event === 'message_received' &&
            e.data.contact_id === text.data.contact_id &&
            e.data.message_type === 'image',
        ),
      15_000,
      'the image',
    );
    // The text did not wait for the image's download.
    expect(Date.parse(text.timestamp)).toBeLessThan(Date.parse(image.timestamp));
  });
});

describe('inbound media retention', () => {
  let short: MessagingSystem;
  let shop: Organization;

  beforeAll(async () => {
    short = await startMessagingSystem('msgmediaret', {
      messagingEnv: {
        // About 1.7 seconds, checked every 200 ms.
        INBOUND_MEDIA_RETENTION_DAYS: '0.00002',
        INBOUND_MEDIA_RETENTION_INTERVAL_MS: '200',
      },
    });
    shop = await short.newOrganization('standard', 'Retention Co');
  });

  afterAll(async () => {
    await short?.stop();
  });

  test('when a file is older than the retention, then it is deleted, getMedia answers 404 and getMessages says expired', async () => {
    const event = await short.customerWrites(shop, { from: uniquePhone(), image: {} });
    expect(event.data.media?.status).toBe('available');
    const messages = await waitFor(
      async () => {
        const answer = await shop.api.get('getMessages', { contact_id: event.data.contact_id });
        return answer.body.messages[0].media.status === 'expired' ? answer : undefined;
      },
      15_000,
      'the file to expire',
    );
    expect(messages.body.messages[0].media).toMatchObject({ status: 'expired', url: null });
    const answer = await shop.api.get('getMedia', { media_id: event.data.message_id });
    expect(answer.status).toBe(404);
  });
});
