import type { TestSimulator } from './support/test-simulator';
import { CHANNEL, startTestSimulator } from './support/test-simulator';

const creation = (name: string, overrides: Record<string, unknown> = {}) => ({
  name,
  category: 'UTILITY',
  language: 'en_US',
  components: [
    { type: 'HEADER', format: 'TEXT', text: 'Order update' },
    {
      type: 'BODY',
      text: 'Hi {{1}}, your order {{2}} has shipped.',
      example: { body_text: [['Jessica', 'SKBUP2-4CPIG9']] },
    },
    { type: 'FOOTER', text: 'Lucky Shrub' },
    { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Stop updates' }] },
  ],
  ...overrides,
});

const templateSend = (name: string, parameters: unknown[], language = 'en_US') => ({
  messaging_product: 'whatsapp',
  recipient_type: 'individual',
  to: '+16505551234',
  type: 'template',
  template: {
    name,
    language: { code: language },
    components: [{ type: 'body', parameters }],
  },
});

const text = (value: string) => ({ type: 'text', text: value });

describe('message templates on the WABA', () => {
  let t: TestSimulator;
  beforeEach(async () => {
    // A review long enough that what a test does right after creating a template finds it still
    // pending on a loaded machine (50 ms was not, in a CI run); the tests wait for approvals.
    t = await startTestSimulator({ templateReviewDelayMs: 1_000 });
  });
  afterEach(() => t.stop());

  const templatesPath = `/v23.0/${CHANNEL.waba_id}/message_templates`;
  const messagesPath = `/v23.0/${CHANNEL.phone_number_id}/messages`;

  it('when a template is created, then it is PENDING, a signed APPROVED webhook follows, and it can be sent', async () => {
    const created = await t.graph('POST', templatesPath, creation('order_shipped'));
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      status: 'PENDING',
      category: 'UTILITY',
    });

    const early = await t.graph(
      'POST',
      messagesPath,
      templateSend('order_shipped', [text('Ann'), text('A1')]),
    );
    expect(early.body.error.code).toBe(132001);

    const [hook] = await t.receiver.waitFor(
      'message_template_status_update',
      (v) => v.event === 'APPROVED',
    );
    expect(hook!.validSignature).toBe(true);
    expect(hook!.body.entry[0]).toMatchObject({ id: CHANNEL.waba_id, time: expect.any(Number) });
    expect(hook!.body.entry[0]!.changes[0]!.value).toEqual({
      event: 'APPROVED',
      message_template_id: Number(created.body.id),
      message_template_name: 'order_shipped',
      message_template_language: 'en_US',
      reason: 'NONE',
      message_template_category: 'UTILITY',
    });

    const sent = await t.graph(
      'POST',
      messagesPath,
      templateSend('order_shipped', [text('Ann'), text('A1')]),
    );
    expect(sent.status).toBe(200);
    expect(sent.body.messages[0]).toEqual({
      id: expect.stringMatching(/^wamid\./),
      message_status: 'accepted',
    });
    const wamid = sent.body.messages[0].id;
    await t.receiver.waitFor('messages', (v) => v.statuses?.[0]?.id === wamid);
    expect(t.receiver.statusesFor(wamid)[0]!.pricing).toEqual({
      billable: true,
      pricing_model: 'PMP',
      type: 'regular',
      category: 'utility',
    });
  });

  it('when a template name contains "reject", then the review rejects it by webhook', async () => {
    const created = await t.graph('POST', templatesPath, creation('please_reject_me'));

    const [hook] = await t.receiver.waitFor(
      'message_template_status_update',
      (v) => v.event === 'REJECTED',
    );

    expect(hook!.body.entry[0]!.changes[0]!.value).toMatchObject({
      message_template_id: Number(created.body.id),
      reason: 'INVALID_FORMAT',
      rejection_info: expect.any(Object),
    });
    const send = await t.graph(
      'POST',
      messagesPath,
      templateSend('please_reject_me', [text('a'), text('b')]),
    );
    expect(send.body.error.code).toBe(132001);
  });

  it('when a template_decision fault matches, then the review follows it', async () => {
    await t.control('POST', '/faults', {
      template_decision: 'REJECTED',
      template_name: 'promo',
      rejection_reason: 'PROMOTIONAL',
    });
    await t.graph('POST', templatesPath, creation('spring_promo', { category: 'MARKETING' }));

    const [hook] = await t.receiver.waitFor(
      'message_template_status_update',
      (v) => v.event === 'REJECTED',
    );

    expect(hook!.body.entry[0]!.changes[0]!.value.reason).toBe('PROMOTIONAL');
  });

  it('when an unknown template is sent, then 132001 with HTTP 404', async () => {
    const answer = await t.graph('POST', messagesPath, templateSend('no_such_template', []));

    expect(answer.status).toBe(404);
    expect(answer.body.error).toMatchObject({
      code: 132001,
      message: '(#132001) Template name does not exist in the translation',
      error_data: { details: 'template name (no_such_template) does not exist in en_US' },
    });
  });

  it('when the parameter count does not match the body, then 132000', async () => {
    await t.control('POST', '/templates', { waba_id: CHANNEL.waba_id, ...creation('two_params') });

    const answer = await t.graph(
      'POST',
      messagesPath,
      templateSend('two_params', [text('only one')]),
    );

    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(132000);
    expect(answer.body.error.error_data.details).toMatch(
      /\(1\) does not match the expected number of params \(2\)/,
    );
  });

  it('when the language has no translation, then 132001', async () => {
    await t.control('POST', '/templates', { waba_id: CHANNEL.waba_id, ...creation('two_params') });

    const answer = await t.graph(
      'POST',
      messagesPath,
      templateSend('two_params', [text('a'), text('b')], 'pt_BR'),
    );

    expect(answer.body.error.code).toBe(132001);
  });

  it('when a named-parameter template is sent with its names, then it is accepted', async () => {
    await t.control('POST', '/templates', {
      waba_id: CHANNEL.waba_id,
      name: 'named_hello',
      category: 'MARKETING',
      language: 'en',
      parameter_format: 'NAMED',
      components: [
        {
          type: 'BODY',
          text: 'Hello {{first_name}}!',
          example: { body_text_named_params: [{ param_name: 'first_name', example: 'Ann' }] },
        },
      ],
    });

    const ok = await t.graph(
      'POST',
      messagesPath,
      templateSend('named_hello', [{ ...text('Ann'), parameter_name: 'first_name' }], 'en'),
    );
    const wrong = await t.graph(
      'POST',
      messagesPath,
      templateSend('named_hello', [{ ...text('Ann'), parameter_name: 'name' }], 'en'),
    );

    expect(ok.status).toBe(200);
    expect(wrong.body.error.code).toBe(132000);
  });

  it('when a creation body is invalid, then Graph errors name the problem', async () => {
    const badName = await t.graph('POST', templatesPath, creation('Bad Name'));
    const badCategory = await t.graph(
      'POST',
      templatesPath,
      creation('ok_name', { category: 'PROMO' }),
    );
    const noExample = await t.graph('POST', templatesPath, {
      ...creation('no_example'),
      components: [{ type: 'BODY', text: 'Hi {{1}}' }],
    });
    const gap = await t.graph('POST', templatesPath, {
      ...creation('gap'),
      components: [{ type: 'BODY', text: 'Hi {{1}} {{3}}', example: { body_text: [['a', 'b']] } }],
    });

    for (const answer of [badName, badCategory, noExample, gap]) {
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe(100);
    }
    expect(noExample.body.error.error_user_title).toMatch(/example/);
  });

  it('when the same name and language is created twice, then 100 with subcode 2388024', async () => {
    await t.graph('POST', templatesPath, creation('twice'));
    const again = await t.graph('POST', templatesPath, creation('twice'));

    expect(again.body.error).toMatchObject({ code: 100, error_subcode: 2388024 });
  });

  it('when templates are listed, then fields, filters, limit and cursors work', async () => {
    for (const name of ['alpha_one', 'alpha_two', 'beta_one']) {
      await t.control('POST', '/templates', { waba_id: CHANNEL.waba_id, ...creation(name) });
    }
    await t.graph('POST', templatesPath, creation('pending_one'));

    const approved = await t.graph(
      'GET',
      `${templatesPath}?fields=name,status&status=approved&limit=2`,
    );
    expect(approved.status).toBe(200);
    expect(approved.body.data).toHaveLength(2);
    expect(Object.keys(approved.body.data[0])).toEqual(['name', 'status', 'id']);
    expect(approved.body.paging.cursors).toEqual({
      before: expect.any(String),
      after: expect.any(String),
    });
    expect(approved.body.paging.next).toEqual(expect.any(String));

    const next = await t.graph(
      'GET',
      new URL(approved.body.paging.next).pathname + new URL(approved.body.paging.next).search,
    );
    expect(next.body.data).toHaveLength(1);
    expect(next.body.paging.next).toBeUndefined();
    const names = [...approved.body.data, ...next.body.data]
      .map((d: { name: string }) => d.name)
      .sort();
    expect(names).toEqual(['alpha_one', 'alpha_two', 'beta_one']);

    const byName = await t.graph('GET', `${templatesPath}?name=alpha`);
    expect(byName.body.data.map((d: { name: string }) => d.name).sort()).toEqual([
      'alpha_one',
      'alpha_two',
    ]);
    expect(Object.keys(byName.body.data[0])).toEqual([
      'name',
      'parameter_format',
      'components',
      'language',
      'status',
      'category',
      'id',
    ]);
  });

  it('when a template is deleted by name, then it is gone and the name is locked', async () => {
    await t.control('POST', '/templates', { waba_id: CHANNEL.waba_id, ...creation('to_delete') });

    const deleted = await t.graph('DELETE', `${templatesPath}?name=to_delete`);
    const listed = await t.graph('GET', `${templatesPath}?name=to_delete`);
    const recreated = await t.graph('POST', templatesPath, creation('to_delete'));
    const missing = await t.graph('DELETE', `${templatesPath}?name=to_delete`);

    expect(deleted.body).toEqual({ success: true });
    expect(listed.body.data).toEqual([]);
    expect(recreated.body.error).toMatchObject({ code: 100, error_subcode: 2388023 });
    expect(missing.status).toBe(400);
  });

  it('when one language is deleted by hsm_id, then the other stays', async () => {
    const en = await t.control('POST', '/templates', {
      waba_id: CHANNEL.waba_id,
      ...creation('bilingual'),
    });
    await t.control('POST', '/templates', {
      waba_id: CHANNEL.waba_id,
      ...creation('bilingual', { language: 'es' }),
    });

    await t.graph('DELETE', `${templatesPath}?name=bilingual&hsm_id=${en.body.template.id}`);
    const listed = await t.graph('GET', `${templatesPath}?name=bilingual&fields=language`);

    expect(listed.body.data.map((d: { language: string }) => d.language)).toEqual(['es']);
  });

  it('when a template is read by id with fields=status, then only status and id come back', async () => {
    const created = await t.graph('POST', templatesPath, creation('by_id'));

    const answer = await t.graph('GET', `/v23.0/${created.body.id}?fields=status`);

    expect(answer.body).toEqual({ status: 'PENDING', id: created.body.id });
  });

  it('when a template is paused through the control API, then sends answer 132015', async () => {
    const created = await t.control('POST', '/templates', {
      waba_id: CHANNEL.waba_id,
      ...creation('pausable'),
    });
    await t.control('POST', `/templates/${created.body.template.id}/status`, { status: 'PAUSED' });

    const answer = await t.graph(
      'POST',
      messagesPath,
      templateSend('pausable', [text('a'), text('b')]),
    );

    expect(answer.body.error.code).toBe(132015);
    await t.receiver.waitFor('message_template_status_update', (v) => v.event === 'PAUSED');
  });
});
