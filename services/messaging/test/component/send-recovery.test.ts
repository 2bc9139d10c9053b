// Nothing stays held after a crash: what a messaging process killed mid-send leaves behind (a
// quota place with no message, a message still pending, a producer's hold never taken over) is
// resolved by the recovery job. The killed process is simulated by writing the state it leaves.
import { randomUUID } from 'node:crypto';
import {
  EXCHANGES,
  MESSAGING_INTERNAL_PATHS,
  ROUTING_KEYS,
  monthKey,
  type MessagingSendCommandInput,
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

// The job resolves what is two leases old: 2 s here.
const LEASE_MS = 1_000;
let system: MessagingSystem;

beforeAll(async () => {
  system = await startMessagingSystem('msgrecovery', {
    messagingEnv: { SEND_LEASE_MS: String(LEASE_MS), SEND_RECOVERY_INTERVAL_MS: '200' },
  });
});

afterAll(async () => {
  await system?.stop();
});

type Doc = Record<string, unknown> & { _id: string };
const collection = (name: string) => system.stack.messaging.db.collection<Doc>(name);

async function used(org: Organization): Promise<number> {
  const quota = await collection('message_quotas').findOne({
    _id: `${org.company_id}:${monthKey()}`,
  });
  return (quota?.used as number | undefined) ?? 0;
}

/** A free organization (100 messages a month) with `count` of them taken. */
async function freeOrgWithUsed(name: string, count: number): Promise<Organization> {
  const org = await system.newOrganization('free', name);
  if (count === 0) return org;
  const reserved = await system.messagingInternal(MESSAGING_INTERNAL_PATHS.reserveQuota, {
    company_id: org.company_id,
    plan: 'free',
    plan_started_at: org.created.organization.plan_started_at,
    count,
  });
  expect(reserved.status).toBe(200);
  return org;
}

const sentTo = async (phone: string): Promise<unknown[]> =>
  (await system.sim('GET', `/sent?to=${phone}&include_rejected=true`)).sent as unknown[];

/**
 * A real send, then put back the way a process killed while the provider call was in flight
 * leaves it: pending, no provider id, its lease long over, its key's answer not recorded.
 */
async function interruptedSend(
  org: Organization,
  phone: string,
  key?: string,
): Promise<{ id: number }> {
  const sent = await org.api.post(
    'sendMessageToPhoneNumber',
    { phone, message: 'Interrupted' },
    key ? { 'Idempotency-Key': key } : {},
  );
  expect(sent.status).toBe(200);
  const id = sent.body.message_id as number;
  // The simulator's statuses (20 ms apart) are in before the message is put back.
  await waitFor(async () =>
    (await collection('messages').findOne({ _id: String(id) }))?.status === 'read'
      ? true
      : undefined,
  );
  await collection('messages').updateOne(
    { _id: String(id) },
    {
      $set: {
        status: 'pending',
        wamid: `pending:${id}`,
        status_times: {},
        history: [],
        statuses_seen: [],
        lease_until: new Date(Date.now() - 10 * LEASE_MS),
      },
    },
  );
  if (key) {
    await collection('idempotency_keys').updateOne(
      { _id: `${org.company_id}:api:${key}` },
      { $set: { response: null } },
    );
  }
  return { id };
}

describe('a send killed before the provider answered', () => {
  test('when messaging died after holding a send’s quota place and before storing its message, then the recovery job gives the place back', async () => {
    const org = await freeOrgWithUsed('Held Co', 99);
    // The first write of a send: the month's last place, held under the message's name.
    const hold: Record<string, number> = { 'holds.message:987654321': Date.now() - 3 * LEASE_MS };
    await system.stack.messaging.db
      .collection<{ _id: string; used: number }>('message_quotas')
      .updateOne({ _id: `${org.company_id}:${monthKey()}` }, { $inc: { used: 1 }, $set: hold });

    await waitFor(async () => ((await used(org)) === 99 ? true : undefined), 10_000, 'place back');
    const quota = await collection('message_quotas').findOne({
      _id: `${org.company_id}:${monthKey()}`,
    });
    expect(quota?.holds).toEqual({});
    const next = await org.api.post('sendMessageToPhoneNumber', {
      phone: uniquePhone(),
      message: 'The last place',
    });
    expect(next.status).toBe(200);
  });

  test('when messaging died after storing a send and before the provider answered, then the job fails it with message_failed, gives its place back and never sends it again', async () => {
    const org = await freeOrgWithUsed('Pending Co', 0);
    const phone = uniquePhone();
    const { id } = await interruptedSend(org, phone);
    expect(await used(org)).toBe(1);

    const failed = await waitFor(
      () => eventsOf(system.events, 'message_failed', id)[0],
      10_000,
      'message_failed',
    );
    expect(failed.data).toMatchObject({ message_id: id, phone });
    expect((failed.data as { error: string }).error).toMatch(/interrupted/);
    const status = await org.api.get('getMessageStatus', { message_id: id });
    expect(status.body).toMatchObject({ message_status: 'failed' });
    expect(await used(org)).toBe(0);
    await sleep(3 * LEASE_MS);
    expect(await sentTo(phone)).toHaveLength(1);
    expect(eventsOf(system.events, 'message_failed', id)).toHaveLength(1);
    expect(await used(org)).toBe(0);
  });

  test('when the provider’s sent status for a send the job failed arrives late, then it joins the message’s history instead of being retried as unknown', async () => {
    const org = await freeOrgWithUsed('Late Co', 0);
    const phone = uniquePhone();
    const { id } = await interruptedSend(org, phone);
    await waitFor(() => eventsOf(system.events, 'message_failed', id)[0], 10_000);

    const wamid = `wamid.LATE${id}`;
    for (const [status, extra] of [
      ['sent', { biz_opaque_callback_data: `sb:${id}` }],
      ['delivered', {}],
    ] as const) {
      const event = {
        id: `test:late:${id}:${status}`,
        company_id: org.company_id,
        inbound_event_id: 'test',
        waba_id: '1',
        field: 'messages',
        value: {
          messaging_product: 'whatsapp',
          metadata: {
            phone_number_id: org.created.channel.phone_number_id,
            display_phone_number: '1',
          },
          statuses: [
            {
              id: wamid,
              status,
              recipient_id: phone,
              timestamp: String(Math.floor(Date.now() / 1000)),
              ...extra,
            },
          ],
        },
        received_at: new Date().toISOString(),
      };
      await system.publish(EXCHANGES.provider, ROUTING_KEYS.provider.status, event, event.id);
    }

    const stored = await waitFor(async () => {
      const message = await collection('messages').findOne({ _id: String(id) });
      return (message?.statuses_seen as string[]).includes('delivered') ? message : undefined;
    });
    expect(stored).toMatchObject({ status: 'failed', statuses_seen: ['sent', 'delivered'] });
  });

  test('when the send had an Idempotency-Key and the caller never came back, then the job fails it the same way and a later retry with the key answers that failure without sending', async () => {
    const org = await freeOrgWithUsed('Keyed Co', 0);
    const phone = uniquePhone();
    const key = `order-${randomUUID()}`;
    const { id } = await interruptedSend(org, phone, key);

    await waitFor(() => eventsOf(system.events, 'message_failed', id)[0], 10_000);
    expect(await used(org)).toBe(0);
    const retried = await org.api.post(
      'sendMessageToPhoneNumber',
      { phone, message: 'Interrupted' },
      { 'Idempotency-Key': key },
    );
    expect(retried.status).toBe(502);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toMatchObject({ code: 'provider_error', message_id: id });
    expect(await sentTo(phone)).toHaveLength(1);
  });
});

describe('a place a producer holds for a command (an automated answer)', () => {
  const hold = (org: Organization, hold_id: string) =>
    system.messagingInternal(MESSAGING_INTERNAL_PATHS.holdQuota, {
      company_id: org.company_id,
      plan: 'free',
      plan_started_at: org.created.organization.plan_started_at,
      hold_id,
    });

  test('when the producer died after holding the place and before handing the command over, then messaging gives it back', async () => {
    const org = await freeOrgWithUsed('Orphan Co', 99);
    const held = await hold(org, 'automation:4242');
    expect(held.body).toEqual({ status: 'success', month: monthKey() });
    // Asked again (a retry that never saw the answer): nothing more is taken; the quota is full.
    expect((await hold(org, 'automation:4242')).status).toBe(200);
    expect((await hold(org, 'automation:4243')).status).toBe(429);
    expect(await used(org)).toBe(100);

    await waitFor(async () => ((await used(org)) === 99 ? true : undefined), 10_000, 'place back');
  });

  test('when the command naming the hold arrives, then its message takes the held place, nothing more is taken and nothing is given back', async () => {
    const org = await freeOrgWithUsed('Handed Co', 99);
    expect((await hold(org, 'automation:5151')).status).toBe(200);
    const phone = uniquePhone();
    const command: MessagingSendCommandInput = {
      company_id: org.company_id,
      plan: 'free',
      plan_started_at: org.created.organization.plan_started_at,
      phone,
      content: { type: 'text', message: 'An automated answer' },
      idempotency_key: 'automation:5151',
      quota_hold: 'automation:5151',
      quota_month: monthKey(),
    };
    await system.publish(EXCHANGES.commands, ROUTING_KEYS.commands.send, command, 'cmd-5151');

    await waitFor(() =>
      system.events.find(
        (event) =>
          event.event === 'message_sent' && (event.data as { phone: string }).phone === phone,
      ),
    );
    expect(await used(org)).toBe(100);
    await sleep(3 * LEASE_MS);
    expect(await used(org)).toBe(100);
    expect(await sentTo(phone)).toHaveLength(1);
  });
});

describe('a broker command’s send killed before the provider answered', () => {
  test('when its lease ran out long ago, then the job leaves it to its command (which may be queued behind thousands), and the command coming back takes it over and sends it', async () => {
    const org = await freeOrgWithUsed('Queued Co', 0);
    const phone = uniquePhone();
    const command: MessagingSendCommandInput = {
      company_id: org.company_id,
      plan: 'free',
      plan_started_at: org.created.organization.plan_started_at,
      phone,
      content: { type: 'text', message: 'A campaign message' },
      idempotency_key: 'campaign:77:1',
    };
    await system.publish(EXCHANGES.commands, ROUTING_KEYS.commands.send, command, 'cmd-77-1');
    const stored = await waitFor(async () => {
      const message = await collection('messages').findOne({ phone, status: 'read' });
      return message ?? undefined;
    });
    expect(stored.via_command).toBe(true);
    // Put back as a killed process leaves it: pending, no provider id, its lease long over.
    await collection('messages').updateOne(
      { _id: stored._id },
      {
        $set: {
          status: 'pending',
          wamid: `pending:${stored._id}`,
          status_times: {},
          history: [],
          statuses_seen: [],
          lease_until: new Date(Date.now() - 10 * LEASE_MS),
        },
      },
    );
    await collection('idempotency_keys').updateOne(
      { _id: `${org.company_id}:command:campaign:77:1` },
      { $set: { response: null } },
    );

    // Many recovery runs (every 200 ms) later, it is still the command's to finish.
    await sleep(5 * LEASE_MS);
    expect(eventsOf(system.events, 'message_failed', Number(stored._id))).toHaveLength(0);
    expect((await collection('messages').findOne({ _id: stored._id }))?.status).toBe('pending');

    await system.publish(EXCHANGES.commands, ROUTING_KEYS.commands.send, command, 'cmd-77-1');
    await waitFor(async () =>
      (await collection('messages').findOne({ _id: stored._id }))?.status === 'read'
        ? true
        : undefined,
    );
    expect(eventsOf(system.events, 'message_failed', Number(stored._id))).toHaveLength(0);
  });
});
