import {
  CONTACTS_INTERNAL_PATHS,
  INTERNAL_SECRET_HEADER,
  QUOTA_MESSAGE_PREFIX,
  orgHeaders,
} from '@switchboard/contracts';
import { jsonBody } from '../../../../test/support/test-infra';
import { startContactsSystem, uniquePhone, type ContactsSystem } from '../support/contacts-harness';

jest.setTimeout(30_000);

let system: ContactsSystem;

beforeAll(async () => {
  system = await startContactsSystem('resolvequota');
});

afterAll(async () => {
  await system?.stop();
});

const DAY = 24 * 3600 * 1000;

/** POST /internal/contacts/resolve as messaging calls it for a send: org headers and enforce_quota. */
async function resolveForSend(
  body: Record<string, unknown>,
  organization: { company_id: number; plan: 'free' | 'standard'; plan_started_at: Date },
) {
  const response = await fetch(system.contacts.url + CONTACTS_INTERNAL_PATHS.resolve, {
    method: 'POST',
    headers: {
      [INTERNAL_SECRET_HEADER]: system.internalSecret,
      'content-type': 'application/json',
      ...orgHeaders(organization),
    },
    body: JSON.stringify({ ...body, enforce_quota: true }),
  });
  return { status: response.status, body: await jsonBody(response) };
}

describe('resolve for a send (enforce_quota)', () => {
  test('when the contact quota is used up, then a new number is refused with the quota error and not stored', async () => {
    const { company_id } = await system.newOrganization('free');
    const expired = {
      company_id,
      plan: 'free' as const,
      plan_started_at: new Date(Date.now() - 31 * DAY),
    };
    const phone = uniquePhone();

    const refused = await resolveForSend({ company_id, phone }, expired);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('quota_exceeded');
    expect(refused.body.message.startsWith(QUOTA_MESSAGE_PREFIX)).toBe(true);

    // Nothing was stored: an inbound message from that number still creates the contact.
    const inbound = await system.internal(CONTACTS_INTERNAL_PATHS.resolve, { company_id, phone });
    expect(inbound.status).toBe(201);
    expect(inbound.body.created).toBe(true);
  });

  test('when the number already is a contact, then it resolves even with the quota used up', async () => {
    const { company_id } = await system.newOrganization('free');
    const phone = uniquePhone();
    await system.internal(CONTACTS_INTERNAL_PATHS.resolve, { company_id, phone, name: 'Ana' });
    const expired = {
      company_id,
      plan: 'free' as const,
      plan_started_at: new Date(Date.now() - 31 * DAY),
    };

    const resolved = await resolveForSend({ company_id, phone }, expired);
    expect(resolved.status).toBe(200);
    expect(resolved.body.contact).toMatchObject({ phone, name: 'Ana' });
  });

  test('when the quota has room, then a new number becomes a contact', async () => {
    const { company_id } = await system.newOrganization('free');
    const phone = uniquePhone();
    const resolved = await resolveForSend(
      { company_id, phone },
      { company_id, plan: 'free', plan_started_at: new Date() },
    );
    expect(resolved.status).toBe(201);
    expect(resolved.body.contact.phone).toBe(phone);
  });

  test('when the org headers name another organization, then the request is refused', async () => {
    const { company_id } = await system.newOrganization('free');
    const resolved = await resolveForSend(
      { company_id, phone: uniquePhone() },
      { company_id: company_id + 1000, plan: 'standard', plan_started_at: new Date() },
    );
    expect(resolved.status).toBe(422);
  });
});
