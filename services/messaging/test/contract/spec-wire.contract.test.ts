import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AccountStatusResponseSchema,
  CampaignResponseSchema,
  CampaignsResponseSchema,
  ContactsResponseSchema,
  ConversationsResponseSchema,
  GroupsResponseSchema,
  MessageStatusResponseSchema,
  MessagesResponseSchema,
  TemplateResponseSchema,
  TemplatesResponseSchema,
  TestWebhookResponseSchema,
  WebhookEnvelopeSchema,
  WebhookResponseSchema,
  buildOpenApiDocument,
  type WebhookEnvelope,
} from '@switchboard/contracts';
import {
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type MessagingSystem,
  type Organization,
} from '../../../campaigns/test/support/system-harness';
import { jsonBody, type LooseJson } from '../../../../test/support/test-infra';
import {
  startReceiver,
  type Behaviour,
  type Receiver,
} from '../../../webhooks/test/support/receiver';

// The spec's wire details, each read from its text and checked through the gateway as a client
// written from the spec alone would meet them.

jest.setTimeout(90_000);

/** Records the raw bodies of the public operations messaging receives, passing every call on. */
function recordingProxy() {
  const bodies = new Map<string, Buffer[]>();
  let target = '';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (!target) {
        res.writeHead(503).end();
        return;
      }
      const body = Buffer.concat(chunks);
      const path = (req.url ?? '').split('?')[0]!;
      if (path.startsWith('/api/svc/')) bodies.set(path, [...(bodies.get(path) ?? []), body]);
      const headers = { ...req.headers };
      delete headers['transfer-encoding'];
      headers['content-length'] = String(body.length);
      const onward = http.request(`${target}${req.url}`, { method: req.method, headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      onward.on('error', () => res.destroy());
      onward.end(body);
    });
  });
  return {
    bodies,
    async start(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    forwardTo(url: string) {
      target = url;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

let system: MessagingSystem;
let org: Organization;
let gatewayUrl: string;
const recorder = recordingProxy();
const receivers: Receiver[] = [];

beforeAll(async () => {
  const messagingFront = await recorder.start();
  system = await startMessagingSystem('specwire', {
    campaignsEnv: {},
    // The request timeout and retry waits are the spec's; receivers are local servers.
    webhooksEnv: { ALLOW_PRIVATE_URLS: 'true' },
    gatewayEnv: { MESSAGING_URL: messagingFront },
  });
  recorder.forwardTo(system.stack.messaging.url);
  org = await system.newOrganization('standard', 'Wire Co');
  gatewayUrl = system.stack.gateway.url;
});

afterAll(async () => {
  await system?.stop();
  await recorder.stop();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

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

describe('names of the published data model', () => {
  test('when createTemplate is given template_name, template_language and components, then the template is created under those names', async () => {
    const created = await org.api.post('createTemplate', {
      template_name: 'wire_names',
      template_language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Your order is ready.' }],
    });
    expect(created.status).toBe(201);
    const { template } = TemplateResponseSchema.parse(created.body);
    expect(template).toMatchObject({ template_name: 'wire_names', template_language: 'en_US' });

    const older = await org.api.post('createTemplate', {
      name: 'wire_older_names',
      language: 'en',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Still taken.' }],
    });
    expect(older.status).toBe(201);
  });

  test('when messages are listed, then each carries message_id, message_wamid and contact_id as the send answer and the events name them', async () => {
    const phone = uniquePhone();
    const sent = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Joinable' });
    expect(sent.status).toBe(200);
    const event = await waitFor(() =>
      system.events.find(
        (item) =>
          item.event === 'message_sent' &&
          (item.data as { message_id: number }).message_id === sent.body.message_id,
      ),
    );
    const { contact_id } = event.data as { contact_id: number };
    const listed = MessagesResponseSchema.parse(
      (await org.api.get('getMessages', { contact_id })).body,
    );
    expect(listed.messages[0]).toMatchObject({
      message_id: sent.body.message_id,
      message_wamid: sent.body.message_wamid,
      contact_id,
    });
    const conversations = ConversationsResponseSchema.parse(
      (await org.api.get('getConversations')).body,
    );
    const mine = conversations.conversations.find((item) => item.contact_id === contact_id)!;
    expect(mine).toMatchObject({
      message_id: sent.body.message_id,
      message_wamid: sent.body.message_wamid,
    });
    expect(mine.last_message).toMatchObject({
      message_id: sent.body.message_id,
      message_wamid: sent.body.message_wamid,
      contact_id,
    });
  });
});

describe('the published states and event catalog: account decisions and API campaigns', () => {
  test('when the provider announces the account disabled, then accountStatus answers it at once', async () => {
    const before = AccountStatusResponseSchema.parse((await org.api.get('accountStatus')).body);
    expect(before.account_status).not.toBe('disabled');
    await system.sim('POST', '/account-update', {
      phone_number_id: org.created.channel.phone_number_id,
      event: 'DISABLED_UPDATE',
      ban_info: { waba_ban_state: ['DISABLE'], waba_ban_date: '2026-11-26' },
    });
    await waitFor(() =>
      system.events.find((item) =>
        item.event === 'account_status_updated' &&
        item.company_id === org.company_id &&
        (item.data as { account_status: string }).account_status === 'disabled'
          ? item
          : undefined,
      ),
    );
    const after = AccountStatusResponseSchema.parse((await org.api.get('accountStatus')).body);
    expect(after.account_status).toBe('disabled');
  });

  test('when an API campaign is triggered, then it shows started and counts its sends, deliveries, reads and failures', async () => {
    const other = await system.newOrganization('standard', 'Campaign Co');
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
    await system.sim('POST', '/faults', { to: failing, error_code: 131026, count: 1 });
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

describe('one paging convention for every list, and header/footer as the provider allows', () => {
  test('when the OpenAPI document is read, then every list operation takes page, per_page and limit and answers meta', () => {
    const document = buildOpenApiDocument();
    // The customer's API; the operator's admin API lists an organization's few numbers whole.
    const apiPaths = Object.entries(document.paths).filter(([path]) => !path.startsWith('/admin/'));
    const lists = apiPaths.flatMap(([path, operations]) => {
      const get = (operations as LooseJson).get;
      const schema = get?.responses?.['200']?.content?.['application/json']?.schema;
      const listKey = Object.entries(schema?.properties ?? {}).find(
        // A message's history and getUsage's `unavailable` (the counters that did not answer)
        // are parts of one answer, not listings to page through.
        ([key, value]) =>
          !['history', 'unavailable'].includes(key) &&
          (value as { type?: string }).type === 'array',
      );
      return listKey ? [{ path, get, schema }] : [];
    });
    expect(lists.map((list) => list.path)).toEqual(
      expect.arrayContaining([
        '/api/svc/getContacts',
        '/api/svc/getGroups',
        '/api/svc/getMessages',
        '/api/svc/getConversations',
        '/api/svc/getTemplates',
        '/api/svc/getCampaigns',
        '/developer/webhooks',
      ]),
    );
    for (const { path, get, schema } of lists) {
      const names = (get.parameters as { name: string }[]).map((parameter) => parameter.name);
      expect({ path, names }).toEqual({
        path,
        names: expect.arrayContaining(['page', 'per_page', 'limit']),
      });
      expect({ path, meta: schema.properties.meta?.properties?.next_page }).toEqual({
        path,
        meta: expect.anything(),
      });
    }
  });

  test('when a list is read page by page following meta.next_page, then every item comes once', async () => {
    const pagesOrg = await system.newOrganization('standard', 'Pages Co');
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

  test('when header or footer is given without buttons, then 422 names the field instead of dropping it', async () => {
    const header = await org.api.post('sendMessageToPhoneNumber', {
      phone: uniquePhone(),
      message: 'Plain text',
      header: 'Title',
    });
    expect(header.status).toBe(422);
    expect(header.body.message).toMatch(/^header: only with buttons/);
    const footer = await org.api.post('sendMessageToPhoneNumber', {
      phone: uniquePhone(),
      message: 'Plain text',
      footer: 'Thanks',
    });
    expect(footer.status).toBe(422);
    expect(footer.body.message).toMatch(/^footer: only with buttons/);
    const withButtons = await org.api.post('sendMessageToPhoneNumber', {
      phone: uniquePhone(),
      message: 'Pick one',
      header: 'Title',
      footer: 'Thanks',
      buttons: ['Yes', 'No'],
    });
    expect(withButtons.status).toBe(200);
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
    const hooks = await system.newOrganization('standard', 'Slow Receiver Co');
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
    const late = await system.newOrganization('standard', 'Late Failure Co');
    const { receiver } = await registerWebhook(
      late.api.token,
      ['message_failed', 'message_status_updated'],
      () => ({ status: 200, body: 'ok' }),
    );
    const phone = uniquePhone();
    // Accepted at once, failed afterwards, and each status webhook of the network sent twice.
    await system.sim('POST', '/faults', {
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
        const { webhooks } = await system.sim('GET', '/webhooks?field=messages&state=delivered');
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
