import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AccountStatusResponseSchema,
  DeleteTemplateResponseSchema,
  EVENT_PAYLOAD_SCHEMAS,
  TemplateResponseSchema,
  TemplatesResponseSchema,
  UploadTemplateMediaResponseSchema,
} from '@switchboard/contracts';
import {
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type MessagingSystem,
  type Organization,
} from '../support/messaging-harness';

jest.setTimeout(60_000);

let system: MessagingSystem;
let org: Organization;
let other: Organization;
let files: Server;
let filesUrl: string;

beforeAll(async () => {
  system = await startMessagingSystem('templates', {
    messagingEnv: {
      EMIT_RESERVED_EVENTS: 'true',
      ALLOW_PRIVATE_URLS: 'true',
      ACCOUNT_STATUS_CACHE_MS: '60000',
    },
    // Decisions come after 300 ms, so a test sees PENDING first.
    simulator: { templateReviewDelayMs: 300 },
  });
  org = await system.newOrganization('standard', 'Templates Co');
  other = await system.newOrganization('standard', 'Other Co');
  files = createServer((req, res) => {
    if (req.url === '/header.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.alloc(2048, 1));
    } else if (req.url === '/notes.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('plain text');
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => files?.close(resolve));
  await system?.stop();
});

const orderTemplate = (name: string) => ({
  name,
  language: 'en_US',
  category: 'UTILITY',
  components: [
    { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}', example: { header_text: ['A-1'] } },
    {
      type: 'BODY',
      text: 'Hi {{1}}, your order ships on {{2}}.',
      example: { body_text: [['Ana', 'Monday']] },
    },
    { type: 'FOOTER', text: 'Shop Co' },
    {
      type: 'BUTTONS',
      buttons: [
        { type: 'QUICK_REPLY', text: 'Stop' },
        {
          type: 'URL',
          text: 'Track',
          url: 'https://shop.example/track/{{1}}',
          example: ['https://shop.example/track/A-1'],
        },
      ],
    },
  ],
});

const sendParameters = [
  { type: 'header', parameters: [{ type: 'text', text: 'A-7' }] },
  {
    type: 'body',
    parameters: [
      { type: 'text', text: 'Ana' },
      { type: 'text', text: 'Friday' },
    ],
  },
  { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'A-7' }] },
];

async function templateStatus(organization: Organization, name: string) {
  const listed = TemplatesResponseSchema.parse((await organization.api.get('getTemplates')).body);
  return listed.templates.find((template) => template.name === name)?.status;
}

const sentCount = async () =>
  (await system.sim('GET', '/sent?include_rejected=true')).sent.length as number;

describe('create → PENDING → webhook → APPROVED → send', () => {
  test('when a template is created, then it is PENDING with the provider id, becomes APPROVED by webhook and can be sent', async () => {
    const created = await org.api.post('createTemplate', orderTemplate('order_shipped'));
    expect(created.status).toBe(201);
    const { template } = TemplateResponseSchema.parse(created.body);
    expect(template).toMatchObject({ status: 'PENDING', category: 'UTILITY', language: 'en_US' });
    expect(system.simulator.state.templates.get(template.provider_id)?.name).toBe('order_shipped');

    await waitFor(async () =>
      (await templateStatus(org, 'order_shipped')) === 'APPROVED' ? true : undefined,
    );
    const approved = await waitFor(() =>
      system.events.find(
        (event) =>
          event.event === 'template_approved' &&
          event.company_id === org.created.organization.company_id,
      ),
    );
    expect(EVENT_PAYLOAD_SCHEMAS.template_approved.parse(approved.data)).toMatchObject({
      template_id: template.id,
      template_name: 'order_shipped',
      template_language: 'en_US',
      reason: null,
    });

    const sent = await org.api.post('sendtemplatemessage', {
      phone: uniquePhone(),
      template_name: 'order_shipped',
      template_language: 'en_US',
      components: sendParameters,
    });
    expect(sent.status).toBe(200);
    expect(sent.body.message_wamid).toMatch(/^wamid\./);
  });

  test('when a template is rejected, then its status and reason are stored and template_rejected is published', async () => {
    const created = await org.api.post('createTemplate', orderTemplate('promo_reject_me'));
    expect(created.status).toBe(201);
    await waitFor(async () =>
      (await templateStatus(org, 'promo_reject_me')) === 'REJECTED' ? true : undefined,
    );
    const listed = TemplatesResponseSchema.parse((await org.api.get('getTemplates')).body);
    expect(listed.templates.find((t) => t.name === 'promo_reject_me')?.rejection_reason).toBe(
      'INVALID_FORMAT',
    );
    const rejected = await waitFor(() =>
      system.events.find(
        (event) =>
          event.event === 'template_rejected' &&
          (event.data as { template_name: string }).template_name === 'promo_reject_me',
      ),
    );
    expect((rejected.data as { reason: string }).reason).toBe('INVALID_FORMAT');

    const before = await sentCount();
    const refused = await org.api.post('sendtemplatemessage', {
      phone: uniquePhone(),
      template_name: 'promo_reject_me',
      template_language: 'en_US',
      components: sendParameters,
    });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('is REJECTED; only APPROVED templates can be sent');
    expect(await sentCount()).toBe(before);
  });
});

describe('sending checks parameters against the stored template, with no provider call', () => {
  beforeAll(async () => {
    await org.api.post('createTemplate', orderTemplate('param_check'));
    await waitFor(async () =>
      (await templateStatus(org, 'param_check')) === 'APPROVED' ? true : undefined,
    );
  });

  test.each([
    [
      'a body parameter missing',
      [
        sendParameters[0],
        { type: 'body', parameters: [{ type: 'text', text: 'Ana' }] },
        sendParameters[2],
      ],
      'the body takes 2 parameter(s), 1 given',
    ],
    [
      'the header parameter missing',
      [sendParameters[1], sendParameters[2]],
      'the header takes 1 parameter(s), 0 given',
    ],
    [
      'the URL button parameter missing',
      [sendParameters[0], sendParameters[1]],
      'button 1 needs a parameter',
    ],
    [
      'a button index the template has not',
      [...sendParameters.slice(0, 2), { ...sendParameters[2], index: '4' }],
      'button index 4 has no parameter in the template',
    ],
    [
      'a button of the wrong kind',
      [...sendParameters.slice(0, 2), { ...sendParameters[2], index: '0' }],
      'button 0 is a quick_reply button, not url',
    ],
  ])('when %s, then 422 names it and nothing is sent', async (_what, components, message) => {
    const before = await sentCount();
    const answer = await org.api.post('sendtemplatemessage', {
      phone: uniquePhone(),
      template_name: 'param_check',
      template_language: 'en_US',
      components,
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ status: 'error', code: 'validation_failed' });
    expect(answer.body.message).toContain(message);
    expect(await sentCount()).toBe(before);
  });
});

describe('createTemplate checks the provider rules first', () => {
  test.each([
    [{ ...orderTemplate('x1'), category: 'SOMETHING' }, 'category'],
    [{ ...orderTemplate('Bad Name') }, 'name'],
    [
      { ...orderTemplate('x2'), components: [{ type: 'FOOTER', text: 'only a footer' }] },
      'must include a BODY component',
    ],
    [
      {
        ...orderTemplate('x3'),
        components: [{ type: 'BODY', text: 'Hi {{2}}', example: { body_text: [['a']] } }],
      },
      'placeholders must be {{1}}, {{2}}… in order',
    ],
    [
      { ...orderTemplate('x4'), components: [{ type: 'BODY', text: 'Hi {{1}}' }] },
      'one example per placeholder',
    ],
    [
      {
        ...orderTemplate('x5'),
        components: [
          { type: 'HEADER', format: 'IMAGE' },
          { type: 'BODY', text: 'Hi' },
        ],
      },
      'needs a handle from uploadTemplateMedia',
    ],
    [
      {
        ...orderTemplate('x6'),
        components: [
          { type: 'BODY', text: 'Hi' },
          {
            type: 'BUTTONS',
            buttons: ['a', 'b', 'c'].map((page) => ({
              type: 'URL',
              text: page,
              url: `https://shop.example/${page}`,
            })),
          },
        ],
      },
      'at most 2 URL button(s), 3 given',
    ],
    [
      {
        ...orderTemplate('x7'),
        components: [
          { type: 'BODY', text: 'Hi' },
          {
            type: 'BUTTONS',
            buttons: [
              { type: 'PHONE_NUMBER', text: 'Call', phone_number: '+393471234567' },
              { type: 'PHONE_NUMBER', text: 'Call too', phone_number: '+393471234568' },
            ],
          },
        ],
      },
      'at most 1 PHONE_NUMBER button(s), 2 given',
    ],
    [
      {
        ...orderTemplate('x8'),
        components: [
          { type: 'BODY', text: 'Hi' },
          {
            type: 'BUTTONS',
            buttons: [
              { type: 'QUICK_REPLY', text: 'Yes' },
              { type: 'URL', text: 'Site', url: 'https://shop.example' },
              { type: 'QUICK_REPLY', text: 'No' },
            ],
          },
        ],
      },
      'quick reply buttons must be grouped together',
    ],
  ])(
    'when the request breaks a rule, then 422 names it and the provider gets nothing (%#)',
    async (body, message) => {
      const before = system.simulator.state.templates.size;
      const answer = await org.api.post('createTemplate', body as Record<string, unknown>);
      expect(answer.status).toBe(422);
      expect(answer.body.message).toContain(message);
      expect(system.simulator.state.templates.size).toBe(before);
    },
  );

  test('when the name and language already exist, then 409', async () => {
    await org.api.post('createTemplate', orderTemplate('twice'));
    const again = await org.api.post('createTemplate', orderTemplate('twice'));
    expect(again.status).toBe(409);
  });
});

describe('media, deletion, refresh and isolation', () => {
  test('when header media is uploaded as a file or by URL, then a handle comes back and an IMAGE template can use it', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(1024, 7)], { type: 'image/jpeg' }), 'header.jpg');
    const byFile = await org.api.multipart('uploadTemplateMedia', form);
    expect(byFile.status).toBe(200);
    const { handle } = UploadTemplateMediaResponseSchema.parse(byFile.body);

    const byUrl = await org.api.post('uploadTemplateMedia', { url: `${filesUrl}/header.png` });
    expect(byUrl.status).toBe(200);
    expect(UploadTemplateMediaResponseSchema.parse(byUrl.body)).toMatchObject({
      mime_type: 'image/png',
      file_size: 2048,
    });

    const created = await org.api.post('createTemplate', {
      name: 'with_image',
      language: 'en',
      category: 'MARKETING',
      components: [
        { type: 'HEADER', format: 'IMAGE', example: { header_handle: [handle] } },
        { type: 'BODY', text: 'New arrivals' },
      ],
    });
    expect(created.status).toBe(201);
  });

  test('when header media has a type or size the provider refuses, then 422 or 413 and no upload', async () => {
    const text = await org.api.post('uploadTemplateMedia', { url: `${filesUrl}/notes.txt` });
    expect(text.status).toBe(422);
    expect(text.body.message).toContain('text/plain is not accepted');
    const form = new FormData();
    form.append(
      'file',
      new Blob([Buffer.alloc(5 * 1024 * 1024 + 1)], { type: 'image/png' }),
      'big.png',
    );
    const big = await org.api.multipart('uploadTemplateMedia', form);
    expect(big.status).toBe(413);
    expect(big.body.message).toContain('at most 5 MB');
  });

  test('when a template is deleted, then it is gone here and at the provider, and sending it is refused', async () => {
    await org.api.post('createTemplate', orderTemplate('to_delete'));
    await waitFor(async () =>
      (await templateStatus(org, 'to_delete')) === 'APPROVED' ? true : undefined,
    );
    const removed = await org.api.post('deleteTemplate', { name: 'to_delete', language: 'en_US' });
    expect(removed.status).toBe(200);
    expect(DeleteTemplateResponseSchema.parse(removed.body).deleted).toEqual([
      { name: 'to_delete', language: 'en_US' },
    ]);
    expect([...system.simulator.state.templates.values()].some((t) => t.name === 'to_delete')).toBe(
      false,
    );
    expect(await templateStatus(org, 'to_delete')).toBeUndefined();
    const sent = await org.api.post('sendtemplatemessage', {
      phone: uniquePhone(),
      template_name: 'to_delete',
      template_language: 'en_US',
      components: sendParameters,
    });
    expect(sent.status).toBe(404);
  });

  test('when the provider changes a status without a webhook reaching us, then refresh=1 brings it in', async () => {
    await org.api.post('createTemplate', orderTemplate('paused_quietly'));
    await waitFor(async () =>
      (await templateStatus(org, 'paused_quietly')) === 'APPROVED' ? true : undefined,
    );
    const remote = [...system.simulator.state.templates.values()].find(
      (t) => t.name === 'paused_quietly',
    )!;
    remote.status = 'PAUSED';
    expect(await templateStatus(org, 'paused_quietly')).toBe('APPROVED');
    const refreshed = TemplatesResponseSchema.parse(
      (await org.api.get('getTemplates', { refresh: 1 })).body,
    );
    expect(refreshed.templates.find((t) => t.name === 'paused_quietly')?.status).toBe('PAUSED');
  });

  test('when deleteTemplate is called with DELETE and no language, then every language of the name goes', async () => {
    for (const language of ['en_US', 'it']) {
      await org.api.post('createTemplate', { ...orderTemplate('two_langs'), language });
    }
    const response = await org.api.send('DELETE', 'deleteTemplate', { name: 'two_langs' });
    expect(response.status).toBe(200);
    const { deleted } = DeleteTemplateResponseSchema.parse(response.body);
    expect(deleted.map((template) => template.language).sort()).toEqual(['en_US', 'it']);
    expect(await templateStatus(org, 'two_langs')).toBeUndefined();
    expect([...system.simulator.state.templates.values()].some((t) => t.name === 'two_langs')).toBe(
      false,
    );
  });

  test("when another organization lists, sends or deletes, then it never sees this organization's templates", async () => {
    const listed = TemplatesResponseSchema.parse((await other.api.get('getTemplates')).body);
    expect(listed.templates).toEqual([]);
    const sent = await other.api.post('sendtemplatemessage', {
      phone: uniquePhone(),
      template_name: 'order_shipped',
      template_language: 'en_US',
      components: sendParameters,
    });
    expect(sent.status).toBe(404);
    const removed = await other.api.post('deleteTemplate', { name: 'order_shipped' });
    expect(removed.status).toBe(404);
    expect(await templateStatus(org, 'order_shipped')).toBe('APPROVED');
  });
});

describe('quality and category updates', () => {
  test('when the provider reports a template quality score and a new category, then both are stored', async () => {
    await org.api.post('createTemplate', orderTemplate('rated'));
    await waitFor(async () =>
      (await templateStatus(org, 'rated')) === 'APPROVED' ? true : undefined,
    );
    const remote = [...system.simulator.state.templates.values()].find((t) => t.name === 'rated')!;
    await system.sim('POST', `/templates/${remote.id}/quality`, { quality_score: 'YELLOW' });
    await system.sim('POST', `/templates/${remote.id}/category`, { category: 'MARKETING' });
    const stored = await waitFor(async () => {
      const listed = TemplatesResponseSchema.parse((await org.api.get('getTemplates')).body);
      const template = listed.templates.find((t) => t.name === 'rated');
      return template?.quality_score === 'YELLOW' && template.category === 'MARKETING'
        ? template
        : undefined;
    });
    expect(stored.status).toBe('APPROVED');
  });
});

describe('account health', () => {
  test('when a quality webhook arrives, then accountStatus answers the new rating at once despite its cache', async () => {
    const phoneNumberId = org.created.channel.phone_number_id;
    const first = AccountStatusResponseSchema.parse((await org.api.get('accountStatus')).body);
    expect(first).toMatchObject({ connection_state: 'connected', quality_rating: 'GREEN' });
    expect(first.messaging_tier).toMatch(/^TIER_/);

    await system.sim('POST', '/quality', {
      phone_number_id: phoneNumberId,
      quality_rating: 'YELLOW',
    });
    const updated = await waitFor(async () => {
      const status = AccountStatusResponseSchema.parse((await org.api.get('accountStatus')).body);
      return status.quality_rating === 'YELLOW' ? status : undefined;
    });
    expect(updated.connection_state).toBe('connected');
  });
});
