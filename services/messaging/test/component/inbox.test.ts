import { connect, type ChannelModel } from 'amqplib';
import {
  ConversationStateResponseSchema,
  ConversationsResponseSchema,
  EXCHANGES,
  type Conversation,
} from '@switchboard/contracts';
import {
  startMessagingSystem,
  uniquePhone,
  type ApiClient,
  type MessagingSystem,
  type Organization,
} from '../support/messaging-harness';
import { conversationUpdated } from '../../../../test/support/polling';

// The human inbox as messaging serves it. Users are the gateway's: a console user's call reaches
// messaging with the user the gateway signed in, which is how these tests make them. What needs
// the gateway's users or campaigns' automation (agents of another organization, forged user
// headers, automated answers pausing and hand-overs) is tested across the services in
// test/e2e/inbox.test.ts.

jest.setTimeout(120_000);

let system: MessagingSystem;
let amqp: ChannelModel;
/** Every `conversation_updated` published on the console exchange, checked against contracts. */
const consoleEvents: unknown[] = [];

beforeAll(async () => {
  system = await startMessagingSystem('inbox');
  amqp = await connect(system.amqpUrl);
  const tap = await amqp.createChannel();
  const { queue } = await tap.assertQueue('', { exclusive: true });
  await tap.bindQueue(queue, EXCHANGES.console, '#');
  await tap.consume(queue, (msg) => {
    if (!msg) return;
    consoleEvents.push(JSON.parse(msg.content.toString()));
    tap.ack(msg);
  });
});

afterAll(async () => {
  await amqp?.close().catch(() => undefined);
  await system?.stop();
});

let userSeq = 0;
/** A user of the organization signed in to the console, with a user id of their own. */
const signedIn = (org: Organization, role: 'owner' | 'agent') => {
  userSeq += 1;
  const user_id = 7000 + userSeq;
  return { user_id, session: org.asUser({ user_id, role }) };
};

async function conversations(
  who: ApiClient,
  query: Record<string, string | number> = {},
): Promise<Conversation[]> {
  const listed = await who.get('getConversations', query);
  expect(listed.status).toBe(200);
  return ConversationsResponseSchema.parse(listed.body).conversations;
}

const contactsIn = async (who: ApiClient, query: Record<string, string | number> = {}) =>
  (await conversations(who, query)).map((conversation) => conversation.contact_id).sort();

/** Waits for a `conversation_updated` of the contact matching `data`. */
const updated = (contact_id: number, data: Record<string, unknown>) =>
  conversationUpdated(consoleEvents, contact_id, data);

const sentTexts = async (phone: string): Promise<string[]> =>
  (
    (await system.sim('GET', `/sent?to=${phone}`)).sent as {
      request: { text?: { body: string } };
    }[]
  ).map((record) => record.request.text?.body ?? '');

describe('assignConversation and getConversations filters', () => {
  test('when a signed-in agent looks, then they see a new inbound conversation, assign it to themselves and find it under me; the console hears each change', async () => {
    const org = await system.newOrganization('standard', 'Inbox Co');
    const owner = signedIn(org, 'owner').session;
    const ada = signedIn(org, 'agent');
    const phone = uniquePhone();
    const other = uniquePhone();
    const received = await system.customerWrites(org, { from: phone, text: 'Hi, help?' });
    await system.customerWrites(org, { from: other, text: 'Hello' });
    const { contact_id } = received.data;

    const listed = await conversations(ada.session);
    expect(listed.find((c) => c.contact_id === contact_id)).toMatchObject({
      contact_id,
      assigned_agent_id: null,
      status: 'open',
      unread_count: 1,
      last_message: { direction: 'inbound', message: 'Hi, help?', sent_by_agent_id: null },
    });
    await updated(contact_id, { unread_count: 1, status: 'open', assigned_agent_id: null });

    const assigned = await ada.session.post('assignConversation', {
      contact_id,
      agent_id: ada.user_id,
    });
    expect(assigned.status).toBe(200);
    expect(ConversationStateResponseSchema.parse(assigned.body).conversation).toMatchObject({
      contact_id,
      assigned_agent_id: ada.user_id,
      status: 'open',
      unread_count: 1,
    });
    await updated(contact_id, { assigned_agent_id: ada.user_id });

    const otherId = (await conversations(ada.session)).find((c) => c.phone === other)!.contact_id;
    expect(await contactsIn(ada.session, { assignee: 'me' })).toEqual([contact_id]);
    expect(await contactsIn(owner, { assignee: 'me' })).toEqual([]);
    expect(await contactsIn(org.api, { assignee: ada.user_id })).toEqual([contact_id]);
    expect(await contactsIn(org.api, { assignee: 'none' })).toEqual([otherId]);
    expect(await contactsIn(org.api, { unread: 'true' })).toEqual([contact_id, otherId].sort());

    const closed = await owner.post('setConversationStatus', {
      contact_id: otherId,
      status: 'closed',
    });
    expect(closed.status).toBe(200);
    await updated(otherId, { status: 'closed' });
    expect(await contactsIn(org.api, { status: 'closed' })).toEqual([otherId]);
    expect(await contactsIn(org.api, { status: 'open' })).toEqual([contact_id]);

    // The owner answers the other contact: read now, and the console hears the count drop.
    const answer = await owner.post('sendMessageToPhoneNumber', {
      phone: other,
      message: 'On it',
    });
    expect(answer.status).toBe(200);
    await updated(otherId, { unread_count: 0 });
    expect(await contactsIn(org.api, { unread: 'false' })).toEqual([otherId]);

    // A closed conversation opens again when the contact writes back.
    await system.customerWrites(org, { from: other, text: 'One more thing' });
    await updated(otherId, { status: 'open', unread_count: 1 });

    const unassigned = await org.api.post('assignConversation', {
      contact_id,
      agent_id: null,
    });
    expect(unassigned.body).toMatchObject({ conversation: { assigned_agent_id: null } });
    expect(await contactsIn(ada.session, { assignee: 'me' })).toEqual([]);
  });

  test('when the input is wrong, then 422 names the field, and an unknown contact is 404', async () => {
    const org = await system.newOrganization('standard', 'Typo Co');
    const { data } = await system.customerWrites(org, { from: uniquePhone(), text: 'Hi' });
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['assignConversation', { agent_id: null }, /^contact_id: /],
      ['assignConversation', { contact_id: data.contact_id }, /^agent_id: /],
      ['assignConversation', { contact_id: data.contact_id, agent_id: 'x' }, /^agent_id: /],
      ['assignConversation', { contact_id: 'abc', agent_id: null }, /^contact_id: /],
      ['setConversationStatus', { contact_id: data.contact_id, status: 'done' }, /^status: /],
      ['setConversationStatus', { status: 'open' }, /^contact_id: /],
    ];
    for (const [operation, body, message] of cases) {
      const answer = await org.api.post(operation, body);
      expect({ operation, body, status: answer.status }).toEqual({ operation, body, status: 422 });
      expect(answer.body.message).toMatch(message);
    }
    const wrongQueries: Record<string, string>[] = [
      { status: 'pending' },
      { assignee: 'someone' },
      { unread: 'maybe' },
    ];
    for (const query of wrongQueries) {
      const answer = await org.api.get('getConversations', query);
      expect({ query, status: answer.status }).toEqual({ query, status: 422 });
    }
    // `me` is a signed-in user; a call with the organization's token acts for nobody.
    const me = await org.api.get('getConversations', { assignee: 'me' });
    expect(me.status).toBe(422);
    expect(me.body.message).toMatch(/^assignee: me needs a signed-in user/);

    const unknown = await org.api.post('setConversationStatus', {
      contact_id: 999_999_999,
      status: 'closed',
    });
    expect(unknown.status).toBe(404);
  });
});

describe('the 24-hour customer service window', () => {
  test('when the contact last wrote over 24 hours ago, then a free-form message is refused naming the window and nothing is sent; a template still goes; after they write again free-form goes', async () => {
    const org = await system.newOrganization('standard', 'Window Co');
    const phone = uniquePhone();
    const dayAndHourAgo = Math.floor(Date.now() / 1000) - 25 * 3600;
    await system.customerWrites(org, {
      from: phone,
      text: 'Old question',
      timestamp: dayAndHourAgo,
    });

    const before = (await system.sim('GET', '/sent?include_rejected=true')).sent.length;
    for (const body of [
      { phone, message: 'Late answer' },
      { phone, message: 'With buttons', buttons: ['Yes', 'No'] },
    ]) {
      const refused = await org.api.post('sendMessageToPhoneNumber', body);
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ status: 'error', code: 'outside_service_window' });
      expect(refused.body.message).toMatch(/^Outside the 24-hour customer service window/);
    }
    const media = await org.api.post('sendmedia', {
      phone,
      type: 'image',
      url: 'https://example.com/a.png',
    });
    expect(media.status).toBe(422);
    expect((await system.sim('GET', '/sent?include_rejected=true')).sent.length).toBe(before);

    const waba_id = system.simulator.state.channels.get(org.created.channel.phone_number_id)!
      .registration.waba_id;
    await system.sim('POST', '/templates', {
      waba_id,
      name: 'follow_up',
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Can we help further?' }],
    });
    await org.api.get('getTemplates', { refresh: 1 });
    const template = await org.api.post('sendtemplatemessage', {
      phone,
      template_name: 'follow_up',
      template_language: 'en_US',
    });
    expect(template.status).toBe(200);

    await system.customerWrites(org, { from: phone, text: 'Yes please' });
    const free = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Sure' });
    expect(free.status).toBe(200);
    // A number that never wrote is left to the provider, as before.
    const fresh = await org.api.post('sendMessageToPhoneNumber', {
      phone: uniquePhone(),
      message: 'Hello',
    });
    expect(fresh.status).toBe(200);
  });
});

describe('the window check of repeated sends', () => {
  test('when the contact wrote within the window, then free-form answers to them go without reading their conversation each time', async () => {
    const org = await system.newOrganization('standard', 'Chatty Co');
    const phone = uniquePhone();
    const { data } = await system.customerWrites(org, { from: phone, text: 'Hi there' });
    const conversationsCollection = system.stack.messaging.db.collection('conversations');
    const reads = jest.spyOn(conversationsCollection, 'findOne');
    try {
      for (const message of ['One', 'Two', 'Three']) {
        const answer = await org.api.post('sendMessageToPhoneNumber', { phone, message });
        expect(answer.status).toBe(200);
      }
      const own = reads.mock.calls.filter(
        ([filter]) => (filter as { _id?: unknown })?._id === `${org.company_id}:${data.contact_id}`,
      );
      expect(own).toHaveLength(0);
    } finally {
      reads.mockRestore();
    }
    expect(await sentTexts(phone)).toEqual(['One', 'Two', 'Three']);
  });
});
