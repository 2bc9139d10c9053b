// The spec's wire details that a client meets across several services, each read from the
// spec's text and checked through the gateway as a client written from the spec alone would meet
// them: the token in multipart forms (the gateway takes it out before messaging or contacts see
// the form), one paging convention over every service's lists, an API campaign's counts, and
// webhook deliveries. Messaging's own wire details are its contract test (spec-wire).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CampaignResponseSchema,
  CampaignsResponseSchema,
  ContactsResponseSchema,
  ConversationsResponseSchema,
  GroupsResponseSchema,
  MessageStatusResponseSchema,
  MessagesResponseSchema,
  TemplatesResponseSchema,
  TestWebhookResponseSchema,
  WebhookEnvelopeSchema,
  WebhookResponseSchema,
  type WebhookEnvelope,
} from '@switchboard/contracts';
import {
  startReceiver,
  type Behaviour,
  type Receiver,
} from '../../services/webhooks/test/support/receiver';
import {
  callSimulator,
  startE2eSystem,
  type ApiClient,
  type E2eSystem,
} from '../support/e2e-system';
import { uniquePhone, waitFor } from '../support/polling';
import { jsonBody, type LooseJson } from '../support/test-infra';

jest.setTimeout(120_000);

/**
 * Records the raw bodies of the public operations messaging receives, passing every call on.
 * Calls that come before messaging's address is known wait for it.
 */
function recordingProxy() {
  const bodies = new Map<string, Buffer[]>();
  let forwardTo: (url: string) => void = () => undefined;
  const target = new Promise<string>((resolve) => (forwardTo = resolve));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void target.then((url) => {
        const body = Buffer.concat(chunks);
        const path = (req.url ?? '').split('?')[0]!;
        if (path.startsWith('/api/svc/')) bodies.set(path, [...(bodies.get(path) ?? []), body]);
        const headers = { ...req.headers };
        delete headers['transfer-encoding'];
        headers['content-length'] = String(body.length);
        const onward = http.request(`${url}${req.url}`, { method: req.method, headers }, (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        });
        onward.on('error', () => res.destroy());
        onward.end(body);
      });
    });
  });
  return {
    bodies,
    async start(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    forwardTo: (url: string) => forwardTo(url),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

interface Organization {
  company_id: number;
  api: ApiClient & { token: string };
}

let e2e: E2eSystem;
let org: Organization;
let gatewayUrl: string;
const recorder = recordingProxy();
const receivers: Receiver[] = [];

beforeAll(async () => {
  const messagingFront = await recorder.start();
  e2e = await startE2eSystem('e2especwire', {
    // Every service calls messaging through the recorder; the gateway's calls are the ones read.
    MESSAGING_URL: messagingFront,
    // The request timeout and retry waits are the spec's; receivers are local servers.
    ALLOW_PRIVATE_URLS: 'true',
    SIM_STATUS_DELAYS_MS: '20,20,20',
  });
  recorder.forwardTo(e2e.system.urls.messaging);
  org = await newOrganization('Wire Co');
  gatewayUrl = e2e.gateway;
});

afterAll(async () => {
  await e2e?.stop();
  await recorder.stop();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function newOrganization(name: string): Promise<Organization> {
  const created = await e2e.createOrganization(name, 'standard');
  return {
    company_id: created.organization.company_id,
    api: { token: created.token, ...e2e.api(created.token) },
  };
}

/** POSTs a multipart form to an operation with no token but what the form holds. */
async function postForm(operation: string, form: FormData) {
  const response = await fetch(`${gatewayUrl}/api/svc/${operation}`, {
    method: 'POST',
    body: form,
  });
  return { status: response.status, body: (await response.json()) as LooseJson };
}

describe('the published API authentication: POST carries the token in the body, multipart forms included', () => {
  test('when sendmedia is posted as multipart with token as a form field, then the file is sent and messaging never sees the token', async () => {
    const form = new FormData();
    form.append('token', org.api.token);
    form.append('phone', uniquePhone());
    form.append('type', 'image');
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'photo.png');
    const sent = await postForm('sendmedia', form);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ status: 'success', message_id: expect.any(Number) });

    const received = recorder.bodies.get('/api/svc/sendmedia')!.at(-1)!;
    expect(received.includes(Buffer.from(org.api.token))).toBe(false);
    expect(received.includes(Buffer.from('name="token"'))).toBe(false);
    expect(received.includes(PNG)).toBe(true);
  });

  test('when uploadTemplateMedia is posted as multipart with token after the file, then the handle comes back', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(2048, 7)], { type: 'image/jpeg' }), 'header.jpg');
    form.append('token', org.api.token);
    const uploaded = await postForm('uploadTemplateMedia', form);
    expect(uploaded.status).toBe(200);
    expect(uploaded.body).toMatchObject({ status: 'success', handle: expect.any(String) });
    const received = recorder.bodies.get('/api/svc/uploadTemplateMedia')!.at(-1)!;
    expect(received.includes(Buffer.from(org.api.token))).toBe(false);
  });

  test('when the token comes after more than 1 MiB of file, then 422 says to put it first; with the token first the same file streams through', async () => {
    const form = new FormData();
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    form.append('file', new Blob([big], { type: 'image/jpeg' }), 'header.jpg');
    form.append('token', org.api.token);
    const refused = await postForm('uploadTemplateMedia', form);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/^token: not found in the form's first 1 MiB/);

    // The same file with the token first streams through.
    const first = new FormData();
    first.append('token', org.api.token);
    first.append('file', new Blob([big], { type: 'image/jpeg' }), 'header.jpg');
    const uploaded = await postForm('uploadTemplateMedia', first);
    expect(uploaded.status).toBe(200);
    expect(uploaded.body.file_size).toBe(big.length);
  });

  test('when a multipart form carries a wrong token, then the answer is the spec’s Invalid token', async () => {
    const form = new FormData();
    form.append('token', 'sb_not-a-token');
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'photo.png');
    const refused = await postForm('uploadTemplateMedia', form);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ status: 'error', message: 'Invalid token' });
  });

  test('when an operation without a file (makeContact) is posted as multipart with the token, then it is done; a file there is 422 and a form over 1 MiB 413', async () => {
    const form = new FormData();
    form.append('token', org.api.token);
    form.append('name', 'Form Client');
    form.append('phone', uniquePhone());
    form.append('custom[plan]', 'gold');
    const made = await postForm('makeContact', form);
    expect(made.status).toBe(201);
    expect(made.body.contact).toMatchObject({ name: 'Form Client', custom: { plan: 'gold' } });

    form.append('photo', new Blob([PNG], { type: 'image/png' }), 'photo.png');
    const withFile = await postForm('makeContact', form);
    expect(withFile.status).toBe(422);
    expect(withFile.body.message).toBe('photo: this operation takes no file');

    const huge = new FormData();
    huge.append('token', org.api.token);
    huge.append('name', 'x'.repeat(2 * 1024 * 1024));
    const tooLarge = await postForm('makeContact', huge);
    expect(tooLarge.status).toBe(413);
  });
});

describe('the published states and event catalog: API campaigns', () => {
  test('when an API campaign is triggered, then it shows started and counts its sends, deliveries, reads and failures', async () => {
    const other = await newOrganization('Campaign Co');
    const created = await other.api.post('createCampaign', {
      name: 'Order updates',
      type: 'api',
      message: { type: 'text', text: 'Order {{1}} shipped' },
      variables: [{ data: 'order' }],
    });
    expect(created.status).toBe(201);
    const id = created.body.campaign.id as number;

    const phone = uniquePhone();
    const failing = uniquePhone();
    await callSimulator(e2e.simulator, '/faults', { to: failing, error_code: 131026, count: 1 });
    for (const [to, order] of [
      [phone, 'A-1'],
      [phone, 'A-2'],
      [failing, 'A-3'],
    ]) {
      await other.api.post('sendcampaigns', { phone: to, campaing_id: id, data: { order } });
    }

    const settled = await waitFor(
      async () => {
        const { campaign } = CampaignResponseSchema.parse(
          (await other.api.get('getCampaign', { id })).body,
        );
        return campaign.read === 2 && campaign.failed === 1 ? campaign : undefined;
      },
      20_000,
      'the API campaign to count its messages',
    );
    expect(settled).toMatchObject({
      status: 'started',
      total_contacts: 3,
      sent: 2,
      delivered: 2,
      read: 2,
      failed: 1,
    });
  });
});

describe('one paging convention for every list', () => {
  test('when a list is read page by page following meta.next_page, then every item comes once', async () => {
    const pagesOrg = await newOrganization('Pages Co');
    const phone = uniquePhone();
    for (let i = 0; i < 3; i++) {
      expect(
        (await pagesOrg.api.post('sendMessageToPhoneNumber', { phone, message: `m${i}` })).status,
      ).toBe(200);
    }
    for (let i = 0; i < 3; i++) {
      await pagesOrg.api.post('addGroup', { name: `Group ${i}` });
      await pagesOrg.api.post('makeContact', { name: `Paged ${i}`, phone: uniquePhone() });
      await pagesOrg.api.post('createCampaign', {
        name: `Paged ${i}`,
        type: 'api',
        message: { type: 'text', text: 'Hi' },
      });
    }
    const contact = (await pagesOrg.api.get('getSingleContact', { phone })).body.contact;

    const lists: [string, string, Record<string, string | number>, (body: unknown) => unknown][] = [
      [
        'getMessages',
        'messages',
        { contact_id: contact.id },
        (b) => MessagesResponseSchema.parse(b),
      ],
      ['getContacts', 'contacts', {}, (b) => ContactsResponseSchema.parse(b)],
      ['getGroups', 'groups', {}, (b) => GroupsResponseSchema.parse(b)],
      ['getCampaigns', 'campaigns', {}, (b) => CampaignsResponseSchema.parse(b)],
      ['getConversations', 'conversations', {}, (b) => ConversationsResponseSchema.parse(b)],
      ['getTemplates', 'templates', {}, (b) => TemplatesResponseSchema.parse(b)],
    ];
    for (const [operation, key, filter, parse] of lists) {
      const whole = (await pagesOrg.api.get(operation, filter)).body;
      parse(whole);
      const ids: unknown[] = [];
      let page: number | null = 1;
      let pages = 0;
      while (page !== null) {
        const answer = await pagesOrg.api.get(operation, { ...filter, page, per_page: 2 });
        expect({ operation, status: answer.status }).toEqual({ operation, status: 200 });
        parse(answer.body);
        ids.push(...answer.body[key].map((item: LooseJson) => item.id ?? item.contact_id));
        expect(answer.body.meta).toMatchObject({ page, per_page: 2, total: whole.meta.total });
        page = answer.body.meta.next_page;
        pages += 1;
      }
      expect({ operation, ids }).toEqual({
        operation,
        ids: whole[key].map((item: LooseJson) => item.id ?? item.contact_id),
      });
      expect(pages).toBe(Math.max(1, Math.ceil(whole.meta.total / 2)));
    }

    // `limit` is the older name of per_page.
    const byLimit = await pagesOrg.api.get('getMessages', { contact_id: contact.id, limit: 1 });
    expect(byLimit.body.messages).toHaveLength(1);
    expect(byLimit.body.meta).toMatchObject({ page: 1, per_page: 1, total: 3, next_page: 2 });
  });
});

/** A customer's endpoint registered through the gateway, checking every signature it receives. */
async function registerWebhook(token: string, events: string[], behaviour: Behaviour) {
  const receiver = await startReceiver(behaviour);
  receivers.push(receiver);
  const created = await developer(token, 'POST', '/developer/webhooks', {
    name: 'Receiver',
    url: receiver.url,
    events,
  });
  expect(created.status).toBe(201);
  const { webhook } = WebhookResponseSchema.parse(created.body);
  receiver.trust(webhook.secret);
  return { receiver, webhook };
}

/** The webhook management API through the gateway, the token in the JSON body of a POST. */
async function developer(token: string, method: string, path: string, body: object = {}) {
  const response = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, token }),
  });
  return { status: response.status, body: await jsonBody(response) };
}

/**
 * What the receiver accepted (signed with its webhook's secret), each an envelope as the spec has
 * it, named in `X-Webhook-Event` as in its body.
 */
const envelopesAt = (receiver: Receiver): WebhookEnvelope[] =>
  receiver.requests
    .filter((request) => request.verified)
    .map((request) => {
      const envelope = WebhookEnvelopeSchema.parse(JSON.parse(request.body.toString()));
      expect(request.headers['x-webhook-event']).toBe(envelope.event);
      return envelope;
    });

describe('the published delivery rules and event catalog: webhook requests and failures as customers receive them', () => {
  test('when a customer tests a webhook through the gateway and the receiver answers after 9 s, then the test says delivered: the 10 s request timeout holds for the test call too', async () => {
    const hooks = await newOrganization('Slow Receiver Co');
    const { receiver, webhook } = await registerWebhook(
      hooks.api.token,
      ['account_status_updated'],
      () => ({ status: 200, body: 'slow but fine', delayMs: 9_000 }),
    );

    const tested = await developer(
      hooks.api.token,
      'POST',
      `/developer/webhooks/${webhook.id}/test`,
    );

    expect(tested.status).toBe(200);
    expect(TestWebhookResponseSchema.parse(tested.body).log).toMatchObject({
      event: 'account_status_updated',
      state: 'succeeded',
      response_status: 200,
      response_body: 'slow but fine',
      error: null,
    });
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.headers['x-webhook-event']).toBe('account_status_updated');
    expect(envelopesAt(receiver).map((envelope) => envelope.event)).toEqual([
      'account_status_updated',
    ]);
  });

  test('when the network accepts a message and fails it later, then the customer receives one signed message_failed with the network’s error and one message_status_updated failed with the real message_wamid', async () => {
    const late = await newOrganization('Late Failure Co');
    const { receiver } = await registerWebhook(
      late.api.token,
      ['message_failed', 'message_status_updated'],
      () => ({ status: 200, body: 'ok' }),
    );
    const phone = uniquePhone();
    // Accepted at once, failed afterwards, and each status webhook of the network sent twice.
    await callSimulator(e2e.simulator, '/faults', {
      to: phone,
      count: 1,
      async_error_code: 131026,
      duplicate_statuses: true,
    });
    const sent = await late.api.post('sendMessageToPhoneNumber', { phone, message: 'Fails later' });
    expect(sent.status).toBe(200);
    const { message_id, message_wamid } = sent.body as {
      message_id: number;
      message_wamid: string;
    };
    expect(message_wamid).toMatch(/^wamid\./);

    const ofMessage = (event: string) =>
      envelopesAt(receiver).filter(
        (envelope) =>
          envelope.event === event &&
          (envelope.data as { message_id: number }).message_id === message_id,
      );
    const failedStatus = () =>
      ofMessage('message_status_updated').filter(
        (envelope) => (envelope.data as { status: string }).status === 'failed',
      );
    await waitFor(
      () =>
        ofMessage('message_failed').length > 0 && failedStatus().length > 0 ? true : undefined,
      20_000,
      'message_failed and message_status_updated failed at the receiver',
    );
    // Both copies of the network's failure taken in by the gateway, then a later message's status
    // received: an announcement of the copy would have gone out before it.
    await waitFor(
      async () => {
        const { webhooks } = await callSimulator(
          e2e.simulator,
          '/webhooks?field=messages&state=delivered',
        );
        const copies = (webhooks as { raw_body: string }[]).filter(
          (webhook) =>
            webhook.raw_body.includes(message_wamid) && webhook.raw_body.includes('"failed"'),
        );
        return copies.length === 2 || undefined;
      },
      10_000,
      'both copies of the failed status delivered by the network',
    );
    const later = await late.api.post('sendMessageToPhoneNumber', {
      phone: uniquePhone(),
      message: 'Arrives',
    });
    expect(later.status).toBe(200);
    await waitFor(
      () =>
        envelopesAt(receiver).some(
          (envelope) =>
            envelope.event === 'message_status_updated' &&
            envelope.data.message_id === later.body.message_id,
        ) || undefined,
      10_000,
      'the later message’s status at the receiver',
    );

    const status = MessageStatusResponseSchema.parse(
      (await late.api.get('getMessageStatus', { message_id })).body,
    );
    expect(status).toMatchObject({ message_status: 'failed', message_wamid });
    expect(status.error).toContain('131026');
    expect(ofMessage('message_failed').map((envelope) => envelope.data)).toEqual([
      {
        message_id,
        contact_id: expect.any(Number),
        phone,
        error: status.error,
        company_id: late.company_id,
      },
    ]);
    expect(failedStatus().map((envelope) => envelope.data)).toEqual([
      {
        message_id,
        message_wamid,
        status: 'failed',
        error: status.error,
        contact_id: expect.any(Number),
        company_id: late.company_id,
      },
    ]);
    expect(receiver.requests.every((request) => request.verified)).toBe(true);
  });
});
