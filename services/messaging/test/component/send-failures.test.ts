import { QUOTA_MESSAGE_PREFIX, monthKey } from '@switchboard/contracts';
import {
  eventsOf,
  startMessagingSystem,
  uniquePhone,
  waitFor,
  type MessagingSystem,
  type Organization,
} from '../support/messaging-harness';

jest.setTimeout(60_000);

let system: MessagingSystem;
let org: Organization;

beforeAll(async () => {
  system = await startMessagingSystem('msgfail');
  org = await system.newOrganization('standard', 'Failing Co');
});

afterAll(async () => {
  await system?.stop();
});

afterEach(async () => {
  await system.sim('DELETE', '/faults');
});

const quotaId = (company_id: number) => `${company_id}:${monthKey()}`;
const messagingDb = () => system.stack.messaging.db;

async function quotaUsed(company_id: number): Promise<number> {
  const quota = await messagingDb()
    .collection<{ _id: string; used: number }>('message_quotas')
    .findOne({ _id: quotaId(company_id) });
  return quota?.used ?? 0;
}

async function setQuotaUsed(company_id: number, used: number): Promise<void> {
  await messagingDb()
    .collection<{ _id: string }>('message_quotas')
    .updateOne(
      { _id: quotaId(company_id) },
      { $set: { used, company_id, month: monthKey() } },
      { upsert: true },
    );
}

async function callsTo(phone: string): Promise<number> {
  const { sent } = await system.sim('GET', `/sent?to=${phone}&include_rejected=true`);
  return (sent as unknown[]).length;
}

describe('a send the provider refuses', () => {
  test('when the provider refuses, then the API answers its error text, the message is failed, message_failed is published and the quota place is given back', async () => {
    const phone = uniquePhone();
    await system.sim('POST', '/faults', { to: phone, error_code: 131026, count: 1 });
    const usedBefore = await quotaUsed(org.company_id);

    const answer = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Hi' });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ status: 'error', code: 'provider_error' });
    expect(answer.body.message).toContain('131026');
    const message_id = answer.body.message_id as number;

    const status = await org.api.get('getMessageStatus', { message_id });
    expect(status.body).toMatchObject({ message_status: 'failed', message_wamid: null });
    expect(status.body.error).toBe(answer.body.message);
    expect(await quotaUsed(org.company_id)).toBe(usedBefore);

    const [failed] = await waitFor(() => {
      const found = eventsOf(system.events, 'message_failed', message_id);
      return found.length > 0 ? found : undefined;
    });
    expect(failed!.data).toEqual({
      message_id,
      contact_id: expect.any(Number),
      phone,
      error: answer.body.message,
      company_id: org.company_id,
    });
    expect(eventsOf(system.events, 'message_sent', message_id)).toHaveLength(0);
    const statusEvents = await waitFor(() => {
      const found = eventsOf(system.events, 'message_status_updated', message_id);
      return found.length > 0 ? found : undefined;
    });
    expect(statusEvents.map((event) => event.data)).toEqual([
      {
        message_id,
        message_wamid: '',
        status: 'failed',
        error: answer.body.message,
        contact_id: expect.any(Number),
        company_id: org.company_id,
      },
    ]);
  });

  test('when the provider answers 5xx twice, then the send is retried and succeeds', async () => {
    const phone = uniquePhone();
    await system.sim('POST', '/faults', { to: phone, http_status: 503, count: 2 });
    const answer = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Retry me' });
    expect(answer.status).toBe(200);
    expect(await callsTo(phone)).toBe(3);
  });

  test('when the throughput limit is hit, then the send waits and is retried', async () => {
    const phone = uniquePhone();
    await system.sim('POST', '/faults', { to: phone, error_code: 130429, count: 1 });
    const answer = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Slow down' });
    expect(answer.status).toBe(200);
    expect(await callsTo(phone)).toBe(2);
  });

  test('when the provider keeps failing, then after a bounded number of attempts the message fails with 503', async () => {
    const other = await system.newOrganization('standard', 'Unlucky Co');
    const phone = uniquePhone();
    await system.sim('POST', '/faults', { to: phone, http_status: 500, count: 10 });
    const answer = await other.api.post('sendMessageToPhoneNumber', { phone, message: 'Never' });
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('dependency_unavailable');
    expect(await callsTo(phone)).toBe(4);
    const status = await other.api.get('getMessageStatus', { message_id: answer.body.message_id });
    expect(status.body.message_status).toBe('failed');
    expect(await quotaUsed(other.company_id)).toBe(0);
  });
});

describe('the monthly message quota (the published error messages and plan limits)', () => {
  test('when the free plan has used its 100 messages, then the send is refused with 429 and nothing happens', async () => {
    const free = await system.newOrganization('free', 'Free Co');
    await setQuotaUsed(free.company_id, 100);
    const phone = uniquePhone();

    const answer = await free.api.post('sendMessageToPhoneNumber', { phone, message: 'One more' });
    expect(answer.status).toBe(429);
    expect(answer.body.code).toBe('quota_exceeded');
    expect(answer.body.message.startsWith(QUOTA_MESSAGE_PREFIX)).toBe(true);
    expect(await callsTo(phone)).toBe(0);
    expect(await quotaUsed(free.company_id)).toBe(100);
    // No half-done work: the number did not become a contact.
    const contact = await free.api.get('getSingleContact', { phone });
    expect(contact.status).toBe(404);
  });

  test('when the last place is left, then one send takes it and the next is refused', async () => {
    const free = await system.newOrganization('free', 'Almost Full Co');
    await setQuotaUsed(free.company_id, 99);
    const [first, second] = await Promise.all([
      free.api.post('sendMessageToPhoneNumber', { phone: uniquePhone(), message: 'a' }),
      free.api.post('sendMessageToPhoneNumber', { phone: uniquePhone(), message: 'b' }),
    ]);
    expect([first!.status, second!.status].sort()).toEqual([200, 429]);
    expect(await quotaUsed(free.company_id)).toBe(100);
  });

  test('when many sends arrive together with fewer places left, then exactly the places left are sent and the rest refused without effect', async () => {
    const free = await system.newOrganization('free', 'Crowded Co');
    await setQuotaUsed(free.company_id, 94);
    const phones = Array.from({ length: 16 }, () => uniquePhone());
    const answers = await Promise.all(
      phones.map((phone, i) =>
        free.api.post('sendMessageToPhoneNumber', { phone, message: `crowd ${i}` }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(6);
    expect(statuses.filter((status) => status === 429)).toHaveLength(10);
    expect(await quotaUsed(free.company_id)).toBe(100);
    const calls = await Promise.all(phones.map((phone) => callsTo(phone)));
    expect(calls.reduce((sum, n) => sum + n, 0)).toBe(6);
  });

  test('when sends are stored, then their places stay counted and the names they were held under go without the recovery job', async () => {
    const free = await system.newOrganization('free', 'Settled Co');
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        free.api.post('sendMessageToPhoneNumber', { phone: uniquePhone(), message: `held ${i}` }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));

    // The recovery job only looks at holds two send leases old (two minutes here): names gone
    // sooner were dropped by the sends themselves, in the quota's writes.
    const quota = await waitFor(
      async () => {
        const found = await messagingDb()
          .collection<{ _id: string; used: number; holds?: Record<string, number> }>(
            'message_quotas',
          )
          .findOne({ _id: quotaId(free.company_id) });
        return found && Object.keys(found.holds ?? {}).length === 0 ? found : undefined;
      },
      20_000,
      'the hold names dropped',
    );
    expect(quota.used).toBe(8);
  });

  test('when the contact quota is full, then a send to a new number is refused and its message place given back', async () => {
    const free = await system.newOrganization('free', 'Many Contacts Co');
    system.contacts.fillContactQuota(free.company_id);
    const phone = uniquePhone();
    const answer = await free.api.post('sendMessageToPhoneNumber', { phone, message: 'Hi' });
    expect(answer.status).toBe(429);
    expect(answer.body.message).toMatch(new RegExp(`^${QUOTA_MESSAGE_PREFIX}.*contacts`));
    expect(await callsTo(phone)).toBe(0);
    expect(await quotaUsed(free.company_id)).toBe(0);
  });

  test('when a send goes to a number with no contact, then the contact is created', async () => {
    const phone = uniquePhone();
    const answer = await org.api.post('sendMessageToPhoneNumber', { phone, message: 'Welcome' });
    expect(answer.status).toBe(200);
    const contact = await org.api.get('getSingleContact', { phone });
    expect(contact.status).toBe(200);
    expect(contact.body.contact.phone).toBe(phone);
  });
});

describe('Idempotency-Key', () => {
  test('when a call is retried with the same key, then the first answer comes back and nothing is sent twice', async () => {
    const phone = uniquePhone();
    const headers = { 'Idempotency-Key': `order-${phone}` };
    const first = await org.api.post(
      'sendMessageToPhoneNumber',
      { phone, message: 'Once' },
      headers,
    );
    const again = await org.api.post(
      'sendMessageToPhoneNumber',
      { phone, message: 'Once' },
      headers,
    );
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await callsTo(phone)).toBe(1);
    await waitFor(() =>
      eventsOf(system.events, 'message_sent', first.body.message_id).length ? true : undefined,
    );
    expect(eventsOf(system.events, 'message_sent', first.body.message_id)).toHaveLength(1);
  });

  test('when the same key is used for another request, then 409 and nothing is sent', async () => {
    const phone = uniquePhone();
    const headers = { 'Idempotency-Key': `reuse-${phone}` };
    await org.api.post('sendMessageToPhoneNumber', { phone, message: 'First' }, headers);
    const other = await org.api.post(
      'sendMessageToPhoneNumber',
      { phone, message: 'Second' },
      headers,
    );
    expect(other.status).toBe(409);
    expect(await callsTo(phone)).toBe(1);
  });

  test('when two calls with one key race, then the provider gets one send', async () => {
    const phone = uniquePhone();
    const headers = { 'Idempotency-Key': `race-${phone}` };
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        org.api.post('sendMessageToPhoneNumber', { phone, message: 'Race' }, headers),
      ),
    );
    for (const answer of answers) expect([200, 409]).toContain(answer.status);
    const ids = new Set(answers.filter((a) => a.status === 200).map((a) => a.body.message_id));
    expect(ids.size).toBe(1);
    expect(await callsTo(phone)).toBe(1);
  });

  test('when a keyed call was refused by the quota, then the same key works once there is room', async () => {
    const free = await system.newOrganization('free', 'Retry Later Co');
    await setQuotaUsed(free.company_id, 100);
    const phone = uniquePhone();
    const headers = { 'Idempotency-Key': `later-${phone}` };
    const refused = await free.api.post(
      'sendMessageToPhoneNumber',
      { phone, message: 'x' },
      headers,
    );
    expect(refused.status).toBe(429);
    await setQuotaUsed(free.company_id, 0);
    const sent = await free.api.post('sendMessageToPhoneNumber', { phone, message: 'x' }, headers);
    expect(sent.status).toBe(200);
    expect(await callsTo(phone)).toBe(1);
  });
});
