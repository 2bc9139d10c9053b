// The console's live updates through real processes: a signed-in user with the stream open
// sees the send an API client makes and the statuses the provider (the simulator) reports, and
// a small campaign's progress as it moves.
import {
  CampaignResponseSchema,
  LiveEventSchema,
  SendMessageResponseSchema,
  type LiveEvent,
} from '@switchboard/contracts';
import { startE2eSystem, type E2eSystem } from '../support/e2e-system';
import { signIn } from '../support/console-client';
import { openLiveStream, type StreamFrame } from '../support/live-stream-client';

jest.setTimeout(180_000);

let e2e: E2eSystem;

beforeAll(async () => {
  e2e = await startE2eSystem('e2elive');
});

afterAll(async () => {
  await e2e?.stop();
});

const eventOf = (frame: StreamFrame) => LiveEventSchema.parse(JSON.parse(frame.data)) as LiveEvent;

test('when a signed-in user has the live stream open, then an API send shows as message_sent and its statuses in order, and a small campaign shows its progress up to completed', async () => {
  const email = 'owner@live.example';
  const password = 'correct horse battery';
  const org = await e2e.createOrganization('Live Desk', 'standard', {
    owner_email: email,
    owner_password: password,
  });
  const company_id = org.organization.company_id;
  const owner = await signIn(e2e.gateway, email, password);
  const stream = await openLiveStream(e2e.gateway, { cookie: owner.cookie });
  expect(stream.status).toBe(200);
  await stream.waitFor((frame) => frame.event === 'ready');

  const client = e2e.api(org.token);
  const phones = ['393471230101', '393471230102', '393471230103'];
  const sent = await client.post('sendMessageToPhoneNumber', { phone: phones[0], message: 'Hi' });
  expect(sent.status).toBe(200);
  const { message_id } = SendMessageResponseSchema.parse(sent.body);
  const ofMessage = (frame: StreamFrame) =>
    frame.event.startsWith('message_') &&
    (eventOf(frame).data as { message_id?: number }).message_id === message_id;

  // The simulator reports delivered and read; each reaches the stream after the send.
  const [readFrame] = await stream.waitFor(
    (frame) =>
      ofMessage(frame) &&
      frame.event === 'message_status_updated' &&
      (eventOf(frame).data as { status: string }).status === 'read',
    1,
    60_000,
  );
  const frames = stream.frames.filter(ofMessage);
  const statuses = frames
    .filter((frame) => frame.event === 'message_status_updated')
    .map((frame) => (eventOf(frame).data as { status: string }).status);
  // messaging publishes message_sent and the `sent` status together, in either order.
  expect(frames.map((frame) => frame.event)).toContain('message_sent');
  expect(statuses.indexOf('delivered')).toBeGreaterThan(-1);
  expect(statuses.indexOf('read')).toBeGreaterThan(statuses.indexOf('delivered'));
  for (const frame of frames) expect(eventOf(frame).company_id).toBe(company_id);
  const ids = frames.map((frame) => Number(frame.id));
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect(readFrame!.id).toBe(String(ids.at(-1)));

  for (const phone of phones.slice(1)) {
    expect((await client.post('sendMessageToPhoneNumber', { phone, message: 'Hi' })).status).toBe(
      200,
    );
  }
  const created = await client.post('createCampaign', {
    name: 'Live progress',
    type: 'regular',
    message: { type: 'text', text: 'News' },
    audience: { type: 'all' },
    send_now: true,
  });
  expect(created.status).toBe(201);
  const { campaign } = CampaignResponseSchema.parse(created.body);
  const progressOf = (frame: StreamFrame) =>
    frame.event === 'campaign_progress' &&
    (eventOf(frame).data as { campaign_id: number }).campaign_id === campaign.id;

  const [completed] = await stream.waitFor(
    (frame) =>
      progressOf(frame) && (eventOf(frame).data as { status: string }).status === 'completed',
    1,
    120_000,
  );
  expect(eventOf(completed!).data).toMatchObject({
    campaign_id: campaign.id,
    total: phones.length,
    sent: phones.length,
    failed: 0,
  });
  const progress = stream.frames.filter(progressOf).map((frame) => eventOf(frame).data);
  // It moved in steps the console can show, never backwards.
  const sentCounts = progress.map((data) => (data as { sent: number }).sent);
  expect(sentCounts).toEqual([...sentCounts].sort((a, b) => a - b));
  expect(stream.frames.some((frame) => frame.event === 'campaign_started')).toBe(true);
  stream.close();
});
