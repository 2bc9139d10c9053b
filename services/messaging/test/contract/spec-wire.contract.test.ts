import {
  AccountStatusResponseSchema,
  ConversationsResponseSchema,
  MessagesResponseSchema,
  TemplateResponseSchema,
  buildOpenApiDocument,
} from '@switchboard/contracts';
import { type LooseJson } from '../../../../test/support/test-infra';
import {
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type MessagingSystem,
  type Organization,
} from '../support/messaging-harness';

// The spec's wire details that are messaging's, each read from its text and checked as a client
// written from the spec alone would meet them, on messaging alone. Those a client meets across
// services (the token in multipart forms, paging every service's lists, API campaigns, webhook
// deliveries) are checked through the gateway in test/e2e/spec-wire.test.ts.

jest.setTimeout(90_000);

let system: MessagingSystem;
let org: Organization;

beforeAll(async () => {
  system = await startMessagingSystem('specwire');
  org = await system.newOrganization('standard', 'Wire Co');
});

afterAll(async () => {
  await system?.stop();
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

describe('the published states and event catalog: account decisions', () => {
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
