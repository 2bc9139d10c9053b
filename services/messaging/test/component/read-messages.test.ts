import { freePortBlock } from '../../../../test/support/test-infra';
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

beforeAll(async () => {
  system = await startMessagingSystem('msgread');
  org = await system.newOrganization('standard', 'Reader Co');
  other = await system.newOrganization('standard', 'Other Co');
});

afterAll(async () => {
  await system?.stop();
});

async function send(api: Organization['api'], phone: string, message: string): Promise<number> {
  const answer = await api.post('sendMessageToPhoneNumber', { phone, message });
  expect(answer.status).toBe(200);
  return answer.body.message_id as number;
}

describe('getMessages and getConversations (the published REST API)', () => {
  test('when a contact has more messages than a page, then pages go newest first with a cursor', async () => {
    const phone = uniquePhone();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await send(org.api, phone, `message ${i}`));
    const contact_id = (await org.api.get('getSingleContact', { phone })).body.contact.id;

    const first = await org.api.get('getMessages', { contact_id, limit: 2 });
    expect(first.status).toBe(200);
    expect(first.body.messages.map((m: { id: number }) => m.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.next_before_id).toBe(ids[3]);
    const second = await org.api.get('getMessages', {
      contact_id,
      limit: 2,
      before_id: first.body.next_before_id,
    });
    expect(second.body.messages.map((m: { id: number }) => m.id)).toEqual([ids[2], ids[1]]);
    const last = await org.api.get('getMessages', {
      contact_id,
      limit: 2,
      before_id: second.body.next_before_id,
    });
    expect(last.body.messages.map((m: { id: number }) => m.id)).toEqual([ids[0]]);
    expect(last.body.next_before_id).toBeNull();
    expect(first.body.messages[0]).toMatchObject({
      direction: 'outbound',
      type: 'text',
      message: 'message 4',
      phone,
      contact_id,
    });
  });

  test('when the limit is over 100 or not a number, then 422 names it', async () => {
    for (const limit of ['101', 'ten', '0']) {
      const answer = await org.api.get('getMessages', { contact_id: 1, limit });
      expect(answer.status).toBe(422);
      expect(answer.body.message).toContain('limit');
    }
    const missing = await org.api.get('getMessages');
    expect(missing.status).toBe(422);
    expect(missing.body.message).toContain('contact_id');
  });

  test('when conversations are listed, then the most recent comes first, paged', async () => {
    const fresh = await system.newOrganization('standard', 'Threads Co');
    const phones = [uniquePhone(), uniquePhone(), uniquePhone()];
    for (const phone of phones) await send(fresh.api, phone, `hi ${phone}`);
    await send(fresh.api, phones[0]!, 'latest');

    const page = await fresh.api.get('getConversations', { limit: 2 });
    expect(page.body.conversations.map((c: { phone: string }) => c.phone)).toEqual([
      phones[0],
      phones[2],
    ]);
    expect(page.body.conversations[0]).toMatchObject({
      unread_count: 0,
      last_message: { message: 'latest', direction: 'outbound' },
    });
    const next = await fresh.api.get('getConversations', {
      limit: 2,
      before_id: page.body.next_before_id,
    });
    expect(next.body.conversations.map((c: { phone: string }) => c.phone)).toEqual([phones[1]]);
    expect(next.body.next_before_id).toBeNull();
  });
});

describe('tenant isolation', () => {
  test("when another organization's message or contact id is asked for, then 404 as if it did not exist", async () => {
    const phone = uniquePhone();
    const message_id = await send(org.api, phone, 'private');
    const contact_id = (await org.api.get('getSingleContact', { phone })).body.contact.id;

    const status = await other.api.get('getMessageStatus', { message_id });
    expect(status.status).toBe(404);
    expect(status.body).toMatchObject({ status: 'error', code: 'not_found' });
    const messages = await other.api.get('getMessages', { contact_id });
    expect(messages.status).toBe(404);
    const conversations = await other.api.get('getConversations');
    expect(
      conversations.body.conversations.some(
        (c: { contact_id: number }) => c.contact_id === contact_id,
      ),
    ).toBe(false);

    const unknown = await org.api.get('getMessageStatus', { message_id: 999_999_999 });
    expect(unknown.status).toBe(404);
  });
});

describe('accountStatus (the published REST API)', () => {
  test('when the provider answers, then connection, account status, quality, tier, number and name are shown', async () => {
    const answer = await org.api.get('accountStatus');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      status: 'success',
      connection_state: 'connected',
      account_status: 'active',
      account_review_status: 'APPROVED',
      quality_rating: 'GREEN',
      messaging_tier: expect.stringMatching(/^TIER_/),
      phone_number: org.created.channel.display_phone_number,
      display_name: 'Reader Co',
      name_status: expect.any(String),
      error: null,
    });
  });

  test('when the provider cannot be reached, then the answer is disconnected, not a 5xx', async () => {
    const lonely = await system.newOrganization('standard', 'Offline Co');
    const deadPort = await freePortBlock(1);
    // The admin points the channel elsewhere (the gateway forwards it to messaging's route).
    const update = await system.messagingAdmin('PUT', `/internal/channels/${lonely.company_id}`, {
      provider_base_url: `http://127.0.0.1:${deadPort}`,
    });
    expect(update.status).toBe(200);
    const answer = await waitFor(async () => {
      const current = await lonely.api.get('accountStatus');
      return current.body.connection_state === 'disconnected' ? current : undefined;
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      status: 'success',
      connection_state: 'disconnected',
      quality_rating: null,
      phone_number: lonely.created.channel.display_phone_number,
      error: expect.stringContaining('unavailable'),
    });
    // Sending is refused the same way, with the message stored as failed.
    const sent = await lonely.api.post('sendMessageToPhoneNumber', {
      phone: uniquePhone(),
      message: 'nobody home',
    });
    expect(sent.status).toBe(503);
    expect(sent.body.code).toBe('dependency_unavailable');
  });
});
