import { connect } from 'amqplib';
import {
  EXCHANGES,
  QUEUES,
  deadQueueFor,
  ProviderEventMessageSchema,
  ProviderStatusBatchMessageSchema,
  ROUTING_KEYS,
  type ProviderEventMessage,
} from '@switchboard/contracts';
import {
  eventsOf,
  sleep,
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type MessagingSystem,
  type Organization,
} from '../support/messaging-harness';

jest.setTimeout(60_000);

let system: MessagingSystem;
let org: Organization;
let phoneNumberId: string;

beforeAll(async () => {
  system = await startMessagingSystem('msgprov');
  org = await system.newOrganization('free', 'Inbox Co');
  phoneNumberId = org.created.channel.phone_number_id;
});

afterAll(async () => {
  await system?.stop();
});

afterEach(async () => {
  await system.sim('DELETE', '/faults');
});

/** Injects an end-user message at the simulator; resolves with its `message_received` event. */
const inject = (input: Record<string, unknown>) => system.customerWrites(org, input);

async function statusOf(message_id: number) {
  return (await org.api.get('getMessageStatus', { message_id })).body;
}

/** A message's status history as [status, applied] pairs. */
const historyPairs = (history: { status: string; applied: boolean }[]) =>
  history.map((entry) => [entry.status, entry.applied]);
const historyOf = async (message_id: number) => historyPairs((await statusOf(message_id)).history);

describe('inbound messages', () => {
  test('when an end user writes, then the message is stored, the contact created with its profile name, the conversation updated and message_received published', async () => {
    const from = uniquePhone();
    const event = await inject({
      from,
      profile_name: 'Sheena Nelson',
      text: 'Does it come in blue?',
    });
    expect(event.company_id).toBe(org.company_id);
    expect(event.data).toEqual({
      message_id: expect.any(Number),
      message_wamid: expect.stringMatching(/^wamid\./),
      contact_id: expect.any(Number),
      contact_name: 'Sheena Nelson',
      phone: from,
      message: 'Does it come in blue?',
      message_type: 'text',
      company_id: org.company_id,
    });

    const contact = await org.api.get('getSingleContact', { phone: from });
    expect(contact.body.contact).toMatchObject({
      id: event.data.contact_id,
      name: 'Sheena Nelson',
    });

    const messages = await org.api.get('getMessages', { contact_id: event.data.contact_id });
    expect(messages.body.messages).toEqual([
      expect.objectContaining({
        id: event.data.message_id,
        direction: 'inbound',
        type: 'text',
        message: 'Does it come in blue?',
        status: 'received',
      }),
    ]);

    const conversations = await org.api.get('getConversations');
    const conversation = conversations.body.conversations.find(
      (item: { contact_id: number }) => item.contact_id === event.data.contact_id,
    );
    expect(conversation).toMatchObject({
      contact_name: 'Sheena Nelson',
      phone: from,
      unread_count: 1,
      last_message: { id: event.data.message_id, direction: 'inbound' },
    });
  });

  test.each(
    (
      [
        ['image', { type: 'image', image: { caption: 'My receipt' } }, 'My receipt'],
        ['image', { type: 'image', image: {} }, '[image]'],
        ['document', { type: 'document', document: { filename: 'cv.pdf' } }, 'cv.pdf'],
        ['video', { type: 'video', video: { caption: 'Look' } }, 'Look'],
        ['audio', { type: 'audio', audio: { voice: true } }, '[voice message]'],
        ['sticker', { type: 'sticker', sticker: {} }, '[sticker]'],
        [
          'interactive',
          { type: 'interactive', button_reply: { id: 'b1', title: 'Yes please' } },
          'Yes please',
        ],
        [
          'interactive',
          { type: 'interactive', list_reply: { id: 'r1', title: 'Large', description: 'XL' } },
          'Large',
        ],
        [
          'button',
          { type: 'button', button: { payload: 'STOP', text: 'Stop promotions' } },
          'Stop promotions',
        ],
        ['reaction', { type: 'reaction', reaction: { emoji: '👍' } }, '👍'],
        [
          'location',
          { type: 'location', location: { latitude: 38.9, longitude: -77.03, name: 'Office' } },
          'Office (38.9, -77.03)',
        ],
        [
          'contacts',
          { type: 'contacts', contacts: [{ name: { formatted_name: 'John Doe' }, phones: [] }] },
          'Contact: John Doe',
        ],
        ['unsupported', { type: 'unsupported' }, '[unsupported: Message type unknown]'],
      ] as [string, Record<string, unknown>, string][]
    ).map(([type, input, text]) => ({ type, input, text })),
  )(
    'when the end user sends $type, then message_type mirrors it and the message reads $text',
    async ({ type, input, text }) => {
      const event = await inject({ from: uniquePhone(), profile_name: 'Typer', ...input });
      expect(event.data.message_type).toBe(type);
      expect(event.data.message).toBe(text);
    },
  );

  test('when the provider delivers the same message twice, then it is stored and announced once', async () => {
    const from = uniquePhone();
    const wamid = `wamid.duplicate${Date.now()}`;
    const first = await inject({ from, id: wamid, text: 'Once only', timestamp: 1750000000 });
    await system.sim('POST', '/inbound', {
      phone_number_id: phoneNumberId,
      from,
      id: wamid,
      text: 'Once only',
      timestamp: 1750000001, // other bytes, so inbound stores and publishes it again
    });
    await sleep(700);
    const messages = await org.api.get('getMessages', { contact_id: first.data.contact_id });
    expect(messages.body.messages).toHaveLength(1);
    expect(
      system.events.filter(
        (event) =>
          event.event === 'message_received' &&
          (event.data as { message_wamid: string }).message_wamid === wamid,
      ),
    ).toHaveLength(1);
  });

  test('when the broker redelivers a provider message, then nothing is stored or published twice', async () => {
    const from = uniquePhone();
    const wamid = `wamid.redelivered${Date.now()}`;
    const message = {
      id: `test:${wamid}`,
      company_id: org.company_id,
      inbound_event_id: 'test',
      waba_id: '1',
      field: 'messages',
      value: {
        messaging_product: 'whatsapp',
        metadata: { phone_number_id: phoneNumberId, display_phone_number: '1' },
        contacts: [{ profile: { name: 'Redo' }, wa_id: from }],
        messages: [
          { from, id: wamid, timestamp: '1750000000', type: 'text', text: { body: 'again' } },
        ],
      },
      received_at: new Date().toISOString(),
    };
    await system.publish(EXCHANGES.provider, ROUTING_KEYS.provider.message, message, message.id);
    await system.publish(EXCHANGES.provider, ROUTING_KEYS.provider.message, message, message.id);
    const event = await waitFor(() =>
      system.events.find(
        (item) =>
          item.event === 'message_received' &&
          (item.data as { message_wamid: string }).message_wamid === wamid,
      ),
    );
    await sleep(700);
    const messages = await org.api.get('getMessages', {
      contact_id: (event.data as { contact_id: number }).contact_id,
    });
    expect(messages.body.messages).toHaveLength(1);
    expect(
      system.events.filter(
        (item) => (item.data as { message_wamid?: string }).message_wamid === wamid,
      ),
    ).toHaveLength(1);
  });

  test('when the business answers, then the unread count of the conversation goes back to zero', async () => {
    const from = uniquePhone();
    const event = await inject({ from, profile_name: 'Asker', text: 'Hello?' });
    await inject({ from, text: 'Anyone?' });
    const unread = async () =>
      (await org.api.get('getConversations')).body.conversations.find(
        (item: { contact_id: number }) => item.contact_id === event.data.contact_id,
      )?.unread_count;
    expect(await unread()).toBe(2);
    const reply = await org.api.post('sendMessageToPhoneNumber', { phone: from, message: 'Yes!' });
    expect(reply.status).toBe(200);
    expect(await unread()).toBe(0);
  });
});

describe('statuses move a message forward only', () => {
  async function sendWith(fault: Record<string, unknown>) {
    const phone = uniquePhone();
    await system.sim('POST', '/faults', { to: phone, count: 1, ...fault });
    const sent = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Status test' });
    expect(sent.status).toBe(200);
    return sent.body as { message_id: number; message_wamid: string };
  }

  const statusEvents = (message_id: number) =>
    eventsOf(system.events, 'message_status_updated', message_id).map(
      (event) => (event.data as { status: string }).status,
    );

  test('when delivered arrives after read, or a status repeats, then nothing moves back and no event is published', async () => {
    const { message_id, message_wamid } = await sendWith({ statuses: ['sent', 'read'] });
    await waitFor(async () =>
      (await statusOf(message_id)).message_status === 'read' ? true : undefined,
    );
    await system.sim('POST', '/status', { wamid: message_wamid, status: 'delivered' });
    await system.sim('POST', '/status', { wamid: message_wamid, status: 'read' });
    await system.sim('POST', '/status', { wamid: message_wamid, status: 'failed' });
    // Both late statuses recorded; one that met a transient failure comes back from the
    // broker's retry queue (5 s) after the other, so the two may be stored in either order.
    await waitFor(
      async () => ((await historyOf(message_id)).length >= 5 ? true : undefined),
      20_000,
      'delivered and failed in the history',
    );
    await sleep(500);
    const status = await statusOf(message_id);
    expect(status.message_status).toBe('read');
    expect(status.error).toBeNull();
    expect(status.status_times.delivered).toBeNull();
    const history = historyPairs(status.history);
    expect(history.slice(0, 3)).toEqual([
      ['sent', true],
      ['sent', false],
      ['read', true],
    ]);
    expect(history).toHaveLength(5);
    expect(history.slice(3)).toEqual(
      expect.arrayContaining([
        ['delivered', false],
        ['failed', false],
      ]),
    );
    expect(statusEvents(message_id)).toEqual(['sent', 'read']);
  });

  test('when the provider reports a send failed later, then the message fails with the error and one event says so', async () => {
    const { message_id } = await sendWith({ async_error_code: 131047 });
    const status = await waitFor(async () => {
      const current = await statusOf(message_id);
      return current.message_status === 'failed' ? current : undefined;
    });
    expect(status.error).toContain('131047');
    await waitFor(() => (statusEvents(message_id).includes('failed') ? true : undefined));
    const [failed] = eventsOf(system.events, 'message_status_updated', message_id).filter(
      (event) => (event.data as { status: string }).status === 'failed',
    );
    expect((failed!.data as { error: string }).error).toBe(status.error);
  });

  test('when the network accepts a message and fails it later, then message_failed says so once with its error, and message_status_updated carries the real wamid', async () => {
    const { message_id, message_wamid } = await sendWith({
      async_error_code: 131026,
      duplicate_statuses: true,
    });
    expect(message_wamid).toMatch(/^wamid\./);
    const status = await waitFor(async () => {
      const current = await statusOf(message_id);
      return current.message_status === 'failed' ? current : undefined;
    });
    const failed = await waitFor(() => {
      const found = eventsOf(system.events, 'message_failed', message_id);
      return found.length > 0 ? found : undefined;
    });
    // The failure webhook came twice: time for a second event, had it been announced twice.
    await sleep(700);
    expect(eventsOf(system.events, 'message_failed', message_id)).toHaveLength(1);
    expect(failed[0]!.data).toEqual({
      message_id,
      contact_id: expect.any(Number),
      phone: expect.any(String),
      error: status.error,
      company_id: org.company_id,
    });
    expect(status.error).toContain('131026');
    const updates = eventsOf(system.events, 'message_status_updated', message_id).filter(
      (event) => (event.data as { status: string }).status === 'failed',
    );
    expect(updates).toHaveLength(1);
    expect(updates[0]!.data).toMatchObject({ message_wamid, error: status.error });
  });

  test('when statuses arrive twice or out of order, then each status is published once', async () => {
    const { message_id } = await sendWith({ duplicate_statuses: true, reorder_statuses: true });
    await waitFor(async () =>
      (await statusOf(message_id)).message_status === 'read' ? true : undefined,
    );
    await sleep(700);
    expect(statusEvents(message_id)).toEqual(['sent', 'read']);
    expect((await statusOf(message_id)).message_status).toBe('read');
  });
});

describe('statuses recorded in batches', () => {
  test('when the statuses of many messages arrive in one burst, repeats and late ones among them, then each message ends read with one event per real move, in arrival order', async () => {
    const sent: { message_id: number; message_wamid: string; phone: string }[] = [];
    for (let index = 0; index < 8; index++) {
      const phone = uniquePhone();
      // No statuses from the simulator: the burst below is every status these messages get.
      await system.sim('POST', '/faults', { to: phone, count: 1, statuses: [] });
      const answer = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Burst' });
      expect(answer.status).toBe(200);
      sent.push({ ...(answer.body as { message_id: number; message_wamid: string }), phone });
    }
    const burst = sent.flatMap(({ message_id, message_wamid, phone }) =>
      ['sent', 'delivered', 'read', 'delivered', 'read'].map((status) => ({
        id: message_wamid,
        status,
        recipient_id: phone,
        biz_opaque_callback_data: `sb:${message_id}`,
      })),
    );
    // One after the other, so that arrival order is this order; the consumer batches them.
    let sequence = 0;
    for (const item of burst) await publishStatus(sent[0]!.message_id * 1000 + sequence++, item);
    for (const { message_id } of sent) {
      const status = await waitFor(async () => {
        const current = await statusOf(message_id);
        return current.message_status === 'read' ? current : undefined;
      });
      expect(historyPairs(status.history)).toEqual([
        ['sent', true],
        ['sent', false],
        ['delivered', true],
        ['read', true],
      ]);
    }
    await sleep(700);
    for (const { message_id } of sent) {
      expect(
        eventsOf(system.events, 'message_status_updated', message_id).map(
          (event) => (event.data as { status: string }).status,
        ),
      ).toEqual(['sent', 'delivered', 'read']);
    }
  });
});

describe('statuses that travel together in one broker message', () => {
  test('when inbound sends the statuses of several webhooks as one batch message, then each is recorded in order and announced once, and the batch delivered again changes nothing', async () => {
    const sent: { message_id: number; message_wamid: string; phone: string }[] = [];
    for (let index = 0; index < 4; index++) {
      const phone = uniquePhone();
      await system.sim('POST', '/faults', { to: phone, count: 1, statuses: [] });
      const answer = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Batch' });
      expect(answer.status).toBe(200);
      sent.push({ ...(answer.body as { message_id: number; message_wamid: string }), phone });
    }
    // One webhook per status, as the provider posts them; a read before its delivered among them.
    let sequence = 0;
    const statuses = sent.flatMap(({ message_id, message_wamid, phone }) =>
      ['sent', 'delivered', 'read', 'delivered'].map((status) =>
        statusEvent(message_id * 1000 + 500 + sequence++, [
          {
            id: message_wamid,
            status,
            recipient_id: phone,
            biz_opaque_callback_data: `sb:${message_id}`,
          },
        ]),
      ),
    );
    const batch = ProviderStatusBatchMessageSchema.parse({ id: `batch:${sequence}`, statuses });
    await system.publish(EXCHANGES.provider, ROUTING_KEYS.provider.status, batch, batch.id);
    for (const { message_id } of sent) {
      const status = await waitFor(async () => {
        const current = await statusOf(message_id);
        return current.message_status === 'read' ? current : undefined;
      });
      expect(historyPairs(status.history)).toEqual([
        ['sent', true],
        ['sent', false],
        ['delivered', true],
        ['read', true],
      ]);
    }
    await system.publish(EXCHANGES.provider, ROUTING_KEYS.provider.status, batch, batch.id);
    await sleep(1000);
    for (const { message_id } of sent) {
      expect((await statusOf(message_id)).history).toHaveLength(4);
      expect(
        eventsOf(system.events, 'message_status_updated', message_id).map(
          (event) => (event.data as { status: string }).status,
        ),
      ).toEqual(['sent', 'delivered', 'read']);
    }
  });
  test('when a batch holds a status of a message nobody sent beside good ones, then the good ones are recorded at once and the batch, after its retries, is parked whole', async () => {
    const phone = uniquePhone();
    await system.sim('POST', '/faults', { to: phone, count: 1, statuses: [] });
    const answer = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Poison' });
    expect(answer.status).toBe(200);
    const { message_id, message_wamid } = answer.body as {
      message_id: number;
      message_wamid: string;
    };
    const good = ['delivered', 'read'].map((status, index) =>
      statusEvent(message_id * 1000 + 900 + index, [
        {
          id: message_wamid,
          status,
          recipient_id: phone,
          biz_opaque_callback_data: `sb:${message_id}`,
        },
      ]),
    );
    const unknown = statusEvent(message_id * 1000 + 902, [
      { id: 'wamid.nobody-sent-this', status: 'delivered', recipient_id: phone },
    ]);
    const batch = ProviderStatusBatchMessageSchema.parse({
      id: `batch:poison:${message_id}`,
      statuses: [good[0]!, unknown, good[1]!],
    });
    await system.publish(EXCHANGES.provider, ROUTING_KEYS.provider.status, batch, batch.id);
    await waitFor(async () =>
      (await statusOf(message_id)).message_status === 'read' ? true : undefined,
    );
    const amqp = await connect(system.amqpUrl);
    try {
      const channel = await amqp.createChannel();
      // Five attempts, five seconds apart (the topology's retry delay).
      const parked = await waitFor(
        async () =>
          (await channel.get(deadQueueFor(QUEUES.messagingProviderEvents), { noAck: true })) ||
          undefined,
        45_000,
        'the batch parked',
      );
      expect(parked.properties.messageId).toBe(batch.id);
      expect(ProviderStatusBatchMessageSchema.parse(JSON.parse(parked.content.toString()))).toEqual(
        batch,
      );
      expect(String(parked.properties.headers?.['x-dead-reason'])).toContain('unknown messages');
    } finally {
      await amqp.close();
    }
    // Recorded once, however many times the batch came back.
    expect(
      eventsOf(system.events, 'message_status_updated', message_id).map(
        (event) => (event.data as { status: string }).status,
      ),
    ).toEqual(['sent', 'delivered', 'read']);
  });
});

describe('statuses recorded without reading the message', () => {
  test('when each status of a send arrives on its own, in order or late or repeated, then each moves it forward only and is announced once, and one in order costs no read of the message', async () => {
    // The file's relay sweeps every 200 ms for events older than 300 ms, and reads each record it
    // takes: on a loaded machine a publication slower than that made a read this test counted.
    // A grace of a minute leaves the reads to the status path alone.
    await system.restartMessaging({ EVENT_RELAY_GRACE_MS: 60_000 });
    const sent: { message_id: number; message_wamid: string; phone: string; data: string }[] = [];
    for (let index = 0; index < 3; index++) {
      const phone = uniquePhone();
      await system.sim('POST', '/faults', { to: phone, count: 1, statuses: [] });
      const answer = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Alone' });
      expect(answer.status).toBe(200);
      const { message_id, message_wamid } = answer.body as {
        message_id: number;
        message_wamid: string;
      };
      // What the send gave the provider to echo, as its statuses carry it.
      const { sent: requests } = await system.sim('GET', `/sent?wamid=${message_wamid}`);
      const data = requests[0].request.biz_opaque_callback_data as string;
      sent.push({ message_id, message_wamid, phone, data });
    }
    const [inOrder, late, repeated] = sent;
    const messages = system.stack.messaging.db.collection('messages');
    // Reads of one message by its `_id` (a status batch's, the relay's) go through findOne.
    const reads = jest.spyOn(messages, 'findOne');
    const readsOf = (id: number) =>
      reads.mock.calls.filter(([filter]) => (filter as { _id?: unknown })?._id === String(id))
        .length;
    let sequence = 0;
    const publish = (message: (typeof sent)[number], status: string) =>
      publishStatus(message.message_id * 1000 + sequence++, {
        id: message.message_wamid,
        status,
        recipient_id: message.phone,
        biz_opaque_callback_data: message.data,
      });
    /** One status on its own, then waits until the message shows it in its history. */
    async function arrives(message: (typeof sent)[number], status: string, seen: number) {
      await publish(message, status);
      await waitFor(async () =>
        (await statusOf(message.message_id)).history.length === seen ? true : undefined,
      );
    }
    /**
     * One status that moves the message, then waits for its announcement and for the relay to
     * be done with it (its outbox empty, looked at with `find`, which is not counted).
     */
    async function moves(message: (typeof sent)[number], status: string) {
      await publish(message, status);
      await waitFor(() =>
        eventsOf(system.events, 'message_status_updated', message.message_id).some(
          (event) => (event.data as { status: string }).status === status,
        )
          ? true
          : undefined,
      );
      await waitFor(async () => {
        const [stored] = await messages.find({ id: message.message_id }).toArray();
        return (stored?.pending_ids as unknown[] | undefined)?.length === 0 ? true : undefined;
      });
    }
    try {
      await moves(inOrder!, 'delivered');
      await moves(inOrder!, 'read');
      expect(readsOf(inOrder!.message_id)).toBe(0);
    } finally {
      reads.mockRestore();
      await system.restartMessaging({ EVENT_RELAY_GRACE_MS: 300 });
    }
    await arrives(late!, 'read', 2);
    await arrives(late!, 'delivered', 3);
    await arrives(repeated!, 'delivered', 2);
    await arrives(repeated!, 'read', 3);
    // The repeat adds nothing: time for it to have, had it been recorded again.
    await publish(repeated!, 'delivered');
    await sleep(700);
    expect(await historyOf(inOrder!.message_id)).toEqual([
      ['sent', true],
      ['delivered', true],
      ['read', true],
    ]);
    expect(await historyOf(late!.message_id)).toEqual([
      ['sent', true],
      ['read', true],
      ['delivered', false],
    ]);
    expect(await historyOf(repeated!.message_id)).toEqual([
      ['sent', true],
      ['delivered', true],
      ['read', true],
    ]);
    for (const [message, statuses] of [
      [inOrder!, ['sent', 'delivered', 'read']],
      [late!, ['sent', 'read']],
      [repeated!, ['sent', 'delivered', 'read']],
    ] as const) {
      const events = eventsOf(system.events, 'message_status_updated', message.message_id);
      const [announced] = eventsOf(system.events, 'message_sent', message.message_id);
      const { contact_id } = announced!.data as { contact_id: number };
      expect(events.map((event) => (event.data as { status: string }).status)).toEqual(statuses);
      for (const event of events) {
        expect(event).toMatchObject({ company_id: org.company_id, phone_number_id: phoneNumberId });
        expect(event.data).toEqual({
          message_id: message.message_id,
          message_wamid: message.message_wamid,
          status: (event.data as { status: string }).status,
          error: null,
          contact_id,
          company_id: org.company_id,
        });
      }
    }
  });
});

describe('a batch of statuses written together', () => {
  /** Sends to new numbers that get no statuses from the simulator; each with its callback data. */
  async function quietSends(count: number) {
    const sent: { message_id: number; message_wamid: string; phone: string; data: string }[] = [];
    for (let index = 0; index < count; index++) {
      const phone = uniquePhone();
      await system.sim('POST', '/faults', { to: phone, count: 1, statuses: [] });
      const answer = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Quiet' });
      expect(answer.status).toBe(200);
      const { message_id, message_wamid } = answer.body as {
        message_id: number;
        message_wamid: string;
      };
      const { sent: requests } = await system.sim('GET', `/sent?wamid=${message_wamid}`);
      const data = requests[0].request.biz_opaque_callback_data as string;
      sent.push({ message_id, message_wamid, phone, data });
    }
    return sent;
  }
  const statusFor =
    (message: { message_wamid: string; phone: string; data: string }) => (status: string) => ({
      id: message.message_wamid,
      status,
      recipient_id: message.phone,
      biz_opaque_callback_data: message.data,
    });
  /** Writes of statuses to the messages (each pushes to a history; the relay's clears do not). */
  const statusWrites = (calls: unknown[][]) =>
    calls.filter(([operations]) =>
      (operations as { updateOne?: { update: { $push?: { history?: unknown } } } }[]).some(
        (operation) => operation.updateOne?.update.$push?.history !== undefined,
      ),
    ).length;

  test('when a send is accepted and its sent, delivered and read arrive one by one, each soon after the last, then its message is written five times: the acceptance, each status carrying the clear of the events before it, and the last clear alone', async () => {
    const messages = system.stack.messaging.db.collection('messages');
    const bulkWrites = jest.spyOn(messages, 'bulkWrite');
    const singleWrites = jest.spyOn(messages, 'updateOne');
    type Statement = { updateOne?: { filter: { _id?: unknown } } };
    /** Updates of one message: statements of bulk writes and single updates, by its `_id`. */
    const writesOf = (id: number) =>
      bulkWrites.mock.calls
        .flatMap(([operations]) => operations as readonly Statement[])
        .filter((operation) => operation.updateOne?.filter._id === String(id)).length +
      singleWrites.mock.calls.filter(([filter]) => (filter as { _id?: unknown })._id === String(id))
        .length;
    let message!: Awaited<ReturnType<typeof quietSends>>[number];
    let writesOfMessage = 0;
    try {
      [message] = (await quietSends(1)) as [typeof message];
      const { message_id } = message;
      await messageSentFor(message_id);
      const status = statusFor(message);
      const announced = (name: string) =>
        waitFor(() =>
          eventsOf(system.events, 'message_status_updated', message_id).some(
            (event) => (event.data as { status: string }).status === name,
          )
            ? true
            : undefined,
        );
      // Each status once the events before it are out (their clear then waits for a write).
      await publishStatus(message_id * 1000, status('sent'));
      await waitFor(async () =>
        (await statusOf(message_id)).history.length === 2 ? true : undefined,
      );
      await publishStatus(message_id * 1000 + 1, status('delivered'));
      await announced('delivered');
      await publishStatus(message_id * 1000 + 2, status('read'));
      await announced('read');
      // The read's events have no later write to ride: their clear is written alone.
      await waitFor(async () => {
        const [stored] = await messages.find({ id: message_id }).toArray();
        return (stored?.pending_ids as unknown[] | undefined)?.length === 0 ? true : undefined;
      });
      writesOfMessage = writesOf(message_id);
    } finally {
      bulkWrites.mockRestore();
      singleWrites.mockRestore();
    }
    expect(writesOfMessage).toBe(5);
    expect(await historyOf(message.message_id)).toEqual([
      ['sent', true],
      ['sent', false],
      ['delivered', true],
      ['read', true],
    ]);
    expect(
      eventsOf(system.events, 'message_status_updated', message.message_id).map(
        (event) => (event.data as { status: string }).status,
      ),
    ).toEqual(['sent', 'delivered', 'read']);
  });

  test('when one provider change reports a sent, a delivered, a read and two statuses of a message whose sent is recorded, then every one is recorded in one write of the messages without reading them, and each move announced once', async () => {
    const [first, second, third, fourth] = await quietSends(4);
    await publishStatus(fourth!.message_id * 1000, statusFor(fourth!)('sent'));
    await waitFor(async () =>
      (await statusOf(fourth!.message_id)).history.length === 2 ? true : undefined,
    );
    const messages = system.stack.messaging.db.collection('messages');
    /** The stored message, looked at with `find` (not counted). */
    const stored = async (id: number) => (await messages.find({ id }).toArray())[0];
    const writes = jest.spyOn(messages, 'bulkWrite');
    const reads = jest.spyOn(messages, 'findOne');
    try {
      await publishStatuses(first!.message_id * 1000, [
        statusFor(first!)('sent'),
        statusFor(second!)('delivered'),
        statusFor(third!)('read'),
        statusFor(fourth!)('delivered'),
        statusFor(fourth!)('read'),
      ]);
      await waitFor(async () =>
        (await stored(fourth!.message_id))?.status === 'read' ? true : undefined,
      );
      await waitFor(async () =>
        (await stored(first!.message_id))?.statuses_seen.length === 1 ? true : undefined,
      );
      expect(statusWrites(writes.mock.calls)).toBe(1);
      expect(reads).not.toHaveBeenCalled();
    } finally {
      writes.mockRestore();
      reads.mockRestore();
    }
    expect(await historyOf(first!.message_id)).toEqual([
      ['sent', true],
      ['sent', false],
    ]);
    expect(await historyOf(second!.message_id)).toEqual([
      ['sent', true],
      ['delivered', true],
    ]);
    expect(await historyOf(fourth!.message_id)).toEqual([
      ['sent', true],
      ['sent', false],
      ['delivered', true],
      ['read', true],
    ]);
    await waitFor(() =>
      eventsOf(system.events, 'message_status_updated', fourth!.message_id).length === 3
        ? true
        : undefined,
    );
    await sleep(500);
    for (const [message, statuses] of [
      [first!, ['sent']],
      [second!, ['sent', 'delivered']],
      [third!, ['sent', 'read']],
      [fourth!, ['sent', 'delivered', 'read']],
    ] as const) {
      expect(
        eventsOf(system.events, 'message_status_updated', message.message_id).map(
          (event) => (event.data as { status: string }).status,
        ),
      ).toEqual(statuses);
    }
  });

  test('when two statuses of a message arrive together and it is not in the likely state (its sent never came), then both are still recorded and announced once', async () => {
    const [unlikely] = await quietSends(1);
    await publishStatuses(unlikely!.message_id * 1000, [
      statusFor(unlikely!)('read'),
      statusFor(unlikely!)('delivered'),
    ]);
    await waitFor(async () =>
      (await statusOf(unlikely!.message_id)).history.length === 3 ? true : undefined,
    );
    await sleep(500);
    expect(await historyOf(unlikely!.message_id)).toEqual([
      ['sent', true],
      ['read', true],
      ['delivered', false],
    ]);
    expect(
      eventsOf(system.events, 'message_status_updated', unlikely!.message_id).map(
        (event) => (event.data as { status: string }).status,
      ),
    ).toEqual(['sent', 'read']);
  });

  test('when a status comes the one-by-one way for a sent message whose wamid key is not written yet, then its callback data finds the message', async () => {
    const [keyless, keyed] = await quietSends(2);
    const keys = system.stack.messaging.db.collection<{ _id: string }>('wamid_keys');
    // Keys follow acceptances: wait for both, then take one away as if it had not come yet.
    await waitFor(async () =>
      (await keys.countDocuments({
        _id: { $in: [keyless!.message_wamid, keyed!.message_wamid] },
      })) === 2
        ? true
        : undefined,
    );
    await keys.deleteOne({ _id: keyless!.message_wamid });
    // A status without callback data beside it sends the whole change the one-by-one way.
    await publishStatuses(keyless!.message_id * 1000, [
      statusFor(keyless!)('delivered'),
      { id: keyed!.message_wamid, status: 'delivered', recipient_id: keyed!.phone },
    ]);
    for (const message of [keyless!, keyed!]) {
      await waitFor(async () =>
        (await statusOf(message.message_id)).message_status === 'delivered' ? true : undefined,
      );
    }
    expect(await historyOf(keyless!.message_id)).toEqual([
      ['sent', true],
      ['delivered', true],
    ]);
  });

  test('when a status of the batch finds its message moved on (a delivered after the read), then it joins the history unapplied, the others land, and nothing is looked up by wamid', async () => {
    const [late, beside] = await quietSends(2);
    await publishStatus(late!.message_id * 1000, statusFor(late!)('read'));
    await waitFor(async () =>
      (await statusOf(late!.message_id)).message_status === 'read' ? true : undefined,
    );
    // The one-by-one way starts from the wamid's key; the batch's second try does not need it.
    const keys = system.stack.messaging.db.collection('wamid_keys');
    const lookups = jest.spyOn(keys, 'findOne');
    try {
      await publishStatuses(late!.message_id * 1000 + 1, [
        statusFor(late!)('delivered'),
        statusFor(beside!)('delivered'),
      ]);
      await waitFor(async () =>
        (await statusOf(late!.message_id)).history.length === 3 ? true : undefined,
      );
      await waitFor(async () =>
        (await statusOf(beside!.message_id)).message_status === 'delivered' ? true : undefined,
      );
      expect(lookups).not.toHaveBeenCalled();
    } finally {
      lookups.mockRestore();
    }
    expect(await historyOf(late!.message_id)).toEqual([
      ['sent', true],
      ['read', true],
      ['delivered', false],
    ]);
    await sleep(500);
    expect(
      eventsOf(system.events, 'message_status_updated', late!.message_id).map(
        (event) => (event.data as { status: string }).status,
      ),
    ).toEqual(['sent', 'read']);
    expect(
      eventsOf(system.events, 'message_status_updated', beside!.message_id).map(
        (event) => (event.data as { status: string }).status,
      ),
    ).toEqual(['sent', 'delivered']);
  });
});

describe('account and display-name decisions', () => {
  const eventFor = (name: string, predicate: (data: Record<string, unknown>) => boolean) =>
    waitFor(() =>
      system.events.find(
        (event) =>
          event.event === name &&
          event.company_id === org.company_id &&
          predicate(event.data as Record<string, unknown>),
      ),
    );

  test('when the account review is decided, then account_status_updated carries the decision', async () => {
    await system.sim('POST', '/account-update', {
      phone_number_id: phoneNumberId,
      decision: 'REJECTED',
    });
    const event = await eventFor('account_status_updated', (data) => data.decision === 'REJECTED');
    expect(event.data).toEqual({
      decision: 'REJECTED',
      account_status: 'rejected',
      company_id: org.company_id,
    });
  });

  test('when the display name is declined or approved, then phone_number_name_updated says so, with the reason only when declined', async () => {
    await system.sim('POST', '/name-update', {
      phone_number_id: phoneNumberId,
      decision: 'REJECTED',
      requested_verified_name: 'Bad Name',
      rejection_reason: 'NAME_FORMAT_UNACCEPTABLE',
    });
    const declined = await eventFor(
      'phone_number_name_updated',
      (data) => data.decision === 'REJECTED',
    );
    expect(declined.data).toEqual({
      decision: 'REJECTED',
      phone_number: expect.any(String),
      requested_name: 'Bad Name',
      rejection_reason: 'NAME_FORMAT_UNACCEPTABLE',
      company_id: org.company_id,
    });
    await system.sim('POST', '/name-update', {
      phone_number_id: phoneNumberId,
      decision: 'APPROVED',
      requested_verified_name: 'Good Name',
    });
    const approved = await eventFor(
      'phone_number_name_updated',
      (data) => data.decision === 'APPROVED',
    );
    expect(approved.data).toMatchObject({ requested_name: 'Good Name', rejection_reason: null });
  });

  test('when a provider notice is redelivered, then its event is published once', async () => {
    const message = {
      id: `test:notice:${Date.now()}`,
      company_id: org.company_id,
      inbound_event_id: 'test',
      waba_id: '1',
      field: 'account_review_update',
      value: { decision: 'DEFERRED' },
      received_at: new Date().toISOString(),
    };
    await system.publish(
      EXCHANGES.provider,
      ROUTING_KEYS.provider.accountUpdate,
      message,
      message.id,
    );
    await system.publish(
      EXCHANGES.provider,
      ROUTING_KEYS.provider.accountUpdate,
      message,
      message.id,
    );
    await eventFor('account_status_updated', (data) => data.decision === 'DEFERRED');
    await sleep(700);
    expect(
      system.events.filter(
        (event) =>
          event.event === 'account_status_updated' &&
          (event.data as { decision: string }).decision === 'DEFERRED',
      ),
    ).toHaveLength(1);
  });
});

/**
 * The state a process killed in the middle of a send leaves: a copy of a real sent message,
 * still pending, its acceptance not stored. Answers the copy's id.
 */
async function pendingCopyOf(phone: string, text: string, offset: number): Promise<number> {
  const sent = await org.api.post('sendMessageToPhoneNumber', { phone, message: text });
  const original = sent.body.message_id as number;
  const messages = system.stack.messaging.db.collection<Record<string, unknown> & { _id: string }>(
    'messages',
  );
  const doc = (await messages.findOne({ _id: String(original) }))!;
  const id = original + offset;
  await messages.insertOne({
    ...doc,
    _id: String(id),
    id,
    status: 'pending',
    wamid: `pending:${id}`,
    status_times: {},
    history: [],
    statuses_seen: [],
    pending_events: {},
    pending_ids: [],
    lease_until: new Date(Date.now() + 60_000),
  });
  return id;
}

/** One provider status for `wamid`, as inbound publishes it. */
const publishStatus = (id: number, item: Record<string, unknown>) => publishStatuses(id, [item]);

/** One provider change reporting several statuses, as inbound publishes it. */
async function publishStatuses(id: number, items: Record<string, unknown>[]): Promise<void> {
  const status = statusEvent(id, items);
  await system.publish(EXCHANGES.provider, ROUTING_KEYS.provider.status, status, status.id);
}

/** The provider event of one change reporting `items`, as inbound builds it. */
function statusEvent(id: number, items: Record<string, unknown>[]): ProviderEventMessage {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return ProviderEventMessageSchema.parse({
    id: `test:status:${id}`,
    company_id: org.company_id,
    inbound_event_id: 'test',
    waba_id: '1',
    field: 'messages',
    value: {
      messaging_product: 'whatsapp',
      metadata: { phone_number_id: phoneNumberId, display_phone_number: '1' },
      statuses: items.map((item) => ({ timestamp, ...item })),
    },
    received_at: new Date().toISOString(),
  });
}

const messageSentFor = (id: number) =>
  waitFor(() =>
    system.events.find(
      (event) =>
        event.event === 'message_sent' && (event.data as { message_id: number }).message_id === id,
    ),
  );

describe('a send interrupted after the provider accepted it', () => {
  test("when the provider's sent status names a pending message in biz_opaque_callback_data, then the acceptance is stored and the send is not repeated", async () => {
    const phone = uniquePhone();
    const id = await pendingCopyOf(phone, 'Original', 1_000_000);
    const wamid = `wamid.ADOPTED${id}`;
    await publishStatus(id, {
      id: wamid,
      status: 'sent',
      recipient_id: phone,
      biz_opaque_callback_data: `sb:${id}`,
    });

    const adopted = await messageSentFor(id);
    expect((adopted.data as { message_wamid: string }).message_wamid).toBe(wamid);
    const stored = await org.api.get('getMessageStatus', { message_id: id });
    expect(stored.body).toMatchObject({ message_status: 'sent', message_wamid: wamid });
  });

  test('when the process died between storing the wamid and the message, then the next status completes the acceptance', async () => {
    const phone = uniquePhone();
    const id = await pendingCopyOf(phone, 'Half stored', 2_000_000);
    const wamid = `wamid.HALF${id}`;
    // The first of the two writes of an acceptance: the wamid's key.
    await system.stack.messaging.db
      .collection<Record<string, unknown> & { _id: string }>('wamid_keys')
      .insertOne({ _id: wamid, message_id: id, company_id: org.company_id });
    await publishStatus(id, { id: wamid, status: 'delivered', recipient_id: phone });

    await messageSentFor(id);
    const stored = await waitFor(async () => {
      const answer = await org.api.get('getMessageStatus', { message_id: id });
      return answer.body.message_status === 'delivered' ? answer.body : undefined;
    });
    expect(stored).toMatchObject({ message_wamid: wamid });
  });
});
