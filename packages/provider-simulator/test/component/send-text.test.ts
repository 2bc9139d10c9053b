import { WAMID_PATTERN } from '@switchboard/provider-simulator';
import type { TestSimulator } from './support/test-simulator';
import { CHANNEL, startTestSimulator, textMessage } from './support/test-simulator';

describe('sending a text message', () => {
  let t: TestSimulator;
  beforeEach(async () => {
    t = await startTestSimulator();
  });
  afterEach(() => t.stop());

  it('when a valid text is sent, then the answer has exactly the Cloud API shape', async () => {
    const answer = await t.graph(
      'POST',
      `/v23.0/${CHANNEL.phone_number_id}/messages`,
      textMessage('+1 (650) 555-1234', 'Hello'),
    );

    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).toEqual(['messaging_product', 'contacts', 'messages']);
    expect(answer.body).toEqual({
      messaging_product: 'whatsapp',
      contacts: [{ input: '+1 (650) 555-1234', wa_id: '16505551234' }],
      messages: [{ id: expect.stringMatching(WAMID_PATTERN) }],
    });
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('when a text is accepted, then signed sent, delivered and read webhooks follow in that order', async () => {
    const answer = await t.graph('POST', `/${CHANNEL.phone_number_id}/messages`, {
      ...textMessage('16505551234', 'Olá, é você? 👋'),
      biz_opaque_callback_data: 'order-42',
    });
    const wamid: string = answer.body.messages[0].id;

    const hooks = await t.receiver.waitFor('messages', (v) => v.statuses?.[0]?.id === wamid, 3);

    expect(hooks.map((h) => h.validSignature)).toEqual([true, true, true]);
    expect(hooks.map((h) => h.body.entry[0]!.changes[0]!.value.statuses![0]!.status)).toEqual([
      'sent',
      'delivered',
      'read',
    ]);
    const first = hooks[0]!.body;
    expect(first.object).toBe('whatsapp_business_account');
    expect(first.entry[0]!.id).toBe(CHANNEL.waba_id);
    const value = first.entry[0]!.changes[0]!.value;
    expect(value.messaging_product).toBe('whatsapp');
    expect(value.metadata).toEqual({
      display_phone_number: '15550783881',
      phone_number_id: CHANNEL.phone_number_id,
    });
    const sent = value.statuses![0]!;
    expect(sent).toEqual({
      id: wamid,
      status: 'sent',
      timestamp: expect.stringMatching(/^\d{10}$/),
      recipient_id: '16505551234',
      biz_opaque_callback_data: 'order-42',
      pricing: {
        billable: false,
        pricing_model: 'PMP',
        type: 'free_customer_service',
        category: 'service',
      },
    });
    expect(sent).not.toHaveProperty('conversation');
    const read = hooks[2]!.body.entry[0]!.changes[0]!.value.statuses![0]!;
    expect(read).not.toHaveProperty('pricing');
  });

  it('when a send is accepted, then /sim/sent shows the exact request body', async () => {
    const body = textMessage('+16505551234', 'Exact bytes');
    const answer = await t.graph('POST', `/v26.0/${CHANNEL.phone_number_id}/messages`, body);

    const sent = await t.control(
      'GET',
      `/sent?phone_number_id=${CHANNEL.phone_number_id}&to=16505551234`,
    );

    expect(sent.status).toBe(200);
    expect(sent.body.sent).toHaveLength(1);
    expect(sent.body.sent[0]).toMatchObject({
      request: body,
      raw_body: JSON.stringify(body),
      accepted: true,
      wamid: answer.body.messages[0].id,
      to: '+16505551234',
      wa_id: '16505551234',
      type: 'text',
    });
  });

  it('when the URL carries no version, then the route still answers', async () => {
    const answer = await t.graph(
      'POST',
      `/${CHANNEL.phone_number_id}/messages`,
      textMessage('16505551234', 'hi'),
    );

    expect(answer.status).toBe(200);
  });

  it('when a received message is marked as read, then the answer is {success:true} and no status follows', async () => {
    const inbound = await t.control('POST', '/inbound', {
      phone_number_id: CHANNEL.phone_number_id,
      from: '16505551234',
      text: 'hi',
    });
    const before = t.receiver.received.length;
    const answer = await t.graph('POST', `/v23.0/${CHANNEL.phone_number_id}/messages`, {
      messaging_product: 'whatsapp',
      status: 'read',
      message_id: inbound.body.wamid,
      typing_indicator: { type: 'text' },
    });

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(t.receiver.received).toHaveLength(before);
  });

  it('when the status delays stop at one entry, then only the sent webhook is posted', async () => {
    await t.stop();
    t = await startTestSimulator({ statusDelaysMs: [10] });
    const answer = await t.graph(
      'POST',
      `/${CHANNEL.phone_number_id}/messages`,
      textMessage('16505551234', 'hi'),
    );
    const wamid = answer.body.messages[0].id;

    await t.receiver.waitFor('messages', (v) => v.statuses?.[0]?.id === wamid);
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(t.receiver.statusesFor(wamid).map((s) => s.status)).toEqual(['sent']);
  });

  it('when duplication and reordering are on, then each status arrives twice, newest first', async () => {
    await t.stop();
    t = await startTestSimulator({ duplicateStatuses: true, reorderStatuses: true });
    const answer = await t.graph(
      'POST',
      `/${CHANNEL.phone_number_id}/messages`,
      textMessage('16505551234', 'hi'),
    );
    const wamid = answer.body.messages[0].id;

    await t.receiver.waitFor('messages', (v) => v.statuses?.[0]?.id === wamid, 6);

    expect(t.receiver.statusesFor(wamid).map((s) => s.status)).toEqual([
      'read',
      'read',
      'delivered',
      'delivered',
      'sent',
      'sent',
    ]);
  });
});
