import { randomBytes } from 'node:crypto';
import {
  AddAgentResponseSchema,
  AgentsResponseSchema,
  CreateNamedTokenResponseSchema,
  CreateOrganizationResponseSchema,
  ErrorResponseSchema,
  QUOTA_MESSAGE_PREFIX,
  SessionResponseSchema,
  TokensResponseSchema,
  type Plan,
} from '@switchboard/contracts';
import type { RunningService } from '@switchboard/service-kit';
import { gatewayConfigSchema, type GatewayConfig } from '../../src/config';
import { startService as startGateway } from '../../src/start-service';
import { startGatewayStack, type GatewayStack } from '../support/gateway-harness';
import {
  callGateway,
  invitationOf,
  sessionCookieOf,
  signIn,
  type Credentials,
  type SignedInSession,
} from '../../../../test/support/console-client';
import {
  MONGODB_URL,
  dropDatabasesWithPrefix,
  isolatedAmqpUrl,
  uniquePrefix,
} from '../../../../test/support/test-infra';

jest.setTimeout(60_000);

const prefix = uniquePrefix('gwusers');
let stack: GatewayStack;
let broker: Awaited<ReturnType<typeof isolatedAmqpUrl>>;

beforeAll(async () => {
  broker = await isolatedAmqpUrl('gwusers');
  stack = await startGatewayStack({ dbPrefix: prefix, amqpUrl: broker.url });
});

afterAll(async () => {
  await stack.stop();
  await dropDatabasesWithPrefix(prefix);
  await broker.drop();
});

const url = () => stack.gateway.url;
const db = () => stack.gateway.db;
const PASSWORD = 'correct horse battery';
const newEmail = (who = 'user') => `${who}.${randomBytes(4).toString('hex')}@example.com`;

/** Another gateway replica on the same database, with settings of its own. */
async function startReplica(env: Record<string, string>): Promise<RunningService<GatewayConfig>> {
  return startGateway(
    gatewayConfigSchema.parse({
      MONGODB_URL,
      MONGODB_DB_PREFIX: prefix,
      AMQP_URL: broker.url,
      INTERNAL_API_SECRET: stack.internalSecret,
      ADMIN_API_TOKEN: stack.adminToken,
      MESSAGING_URL: stack.messaging.url,
      LOG_LEVEL: 'silent',
      PORT: '0',
      API_RATE_SCALE: '1000',
      FAILED_AUTH_PER_MINUTE: '100000',
      ...env,
    }),
  );
}

async function createOrganization(body: Record<string, unknown>) {
  return callGateway(url(), 'POST', '/admin/organizations', { token: stack.adminToken }, body);
}

/** An organization whose owner has a password, and the owner signed in. */
async function organizationWithOwner(plan: Plan = 'standard') {
  const email = newEmail('owner');
  const created = await createOrganization({
    name: 'Support Co',
    plan,
    owner_email: email,
    owner_password: PASSWORD,
  });
  expect(created.status).toBe(201);
  const organization = CreateOrganizationResponseSchema.parse(created.body);
  const owner = await signIn(url(), email, PASSWORD);
  return { ...organization, email, owner };
}

const api = (
  method: string,
  operation: string,
  credentials: Credentials,
  body?: Record<string, unknown>,
) => callGateway(url(), method, `/api/svc/${operation}`, credentials, body);

/** Adds a user as `by` and lets them set their password and sign in. */
async function addSignedInUser(by: SignedInSession, role: 'admin' | 'agent') {
  const email = newEmail(role);
  const added = await api('POST', 'addAgent', by, { name: `The ${role}`, email, role });
  expect(added.status).toBe(201);
  const { agent, invitation_url } = AddAgentResponseSchema.parse(added.body);
  const accepted = await callGateway(
    url(),
    'POST',
    '/auth/accept-invitation',
    {},
    {
      invitation: invitationOf(invitation_url),
      password: PASSWORD,
    },
  );
  expect(accepted.status).toBe(200);
  return { agent, email, session: await signIn(url(), email, PASSWORD) };
}

describe('owners, sign-in and sessions', () => {
  test('when an organization is created with an owner and a password, then the owner signs in with an HttpOnly SameSite cookie and the password is stored only as a scrypt hash', async () => {
    const { organization, owner, email } = await organizationWithOwner();
    expect(owner.user).toEqual({
      id: expect.any(Number),
      company_id: organization.company_id,
      name: email.split('@')[0],
      email,
      role: 'owner',
    });
    expect(owner.setCookie).toMatch(
      /^sb_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200$/,
    );

    const stored = await db().collection('users').findOne({ email });
    expect(stored?.password_hash).toMatch(/^scrypt\$32768\$8\$3\$/);
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);
    const session = await db().collection('sessions').findOne({ user_id: owner.user.id });
    expect(JSON.stringify(session)).not.toContain(owner.secret);

    const current = await callGateway(url(), 'GET', '/auth/session', owner);
    expect(current.status).toBe(200);
    expect(SessionResponseSchema.parse(current.body).csrf_token).toBe(owner.csrf);
  });

  test('when an organization is created with an owner email only, then the answer carries a one-time invitation that sets the password and signs in', async () => {
    const email = newEmail('owner');
    const created = await createOrganization({ name: 'Invited Co', owner_email: email });
    expect(created.status).toBe(201);
    const { owner } = CreateOrganizationResponseSchema.parse(created.body);
    expect(owner).toMatchObject({ email, role: 'owner' });
    expect(owner!.invitation_url).toMatch(
      /^http:\/\/127\.0\.0\.1:8080\/console\/accept-invitation#invitation=[A-Za-z0-9_-]{43}$/,
    );
    const invitation = invitationOf(owner!.invitation_url!);

    const refused = await signIn(url(), email, PASSWORD).catch((error: Error) => error.message);
    expect(refused).toContain('Wrong email or password');
    const accepted = await callGateway(
      url(),
      'POST',
      '/auth/accept-invitation',
      {},
      {
        invitation,
        password: PASSWORD,
        name: 'Olivia Owner',
      },
    );
    expect(accepted.status).toBe(200);
    expect(accepted.body.user).toMatchObject({ email, name: 'Olivia Owner', role: 'owner' });
    expect(sessionCookieOf(accepted.headers.get('set-cookie')).secret).toHaveLength(43);

    const again = await callGateway(
      url(),
      'POST',
      '/auth/accept-invitation',
      {},
      {
        invitation,
        password: 'another password',
      },
    );
    expect(again.status).toBe(401);
    expect(again.body.message).toBe('This invitation is unknown, used or expired');
    await signIn(url(), email, PASSWORD);
  });

  test('when the owner is given wrongly (a password without an email, a taken email), then 422 or 409 and no organization is left', async () => {
    const before = await db().collection('organizations').countDocuments();
    const noEmail = await createOrganization({ name: 'X', owner_password: PASSWORD });
    expect(noEmail.status).toBe(422);
    expect(noEmail.body.message).toBe('owner_password: owner_password needs owner_email');
    const shortPassword = await createOrganization({
      name: 'X',
      owner_email: newEmail(),
      owner_password: 'short',
    });
    expect(shortPassword.status).toBe(422);
    expect(shortPassword.body.message).toBe('owner_password: must be at least 8 characters');

    const { email } = await organizationWithOwner();
    const count = await db().collection('organizations').countDocuments();
    const taken = await createOrganization({ name: 'Copycat', owner_email: email.toUpperCase() });
    expect(taken.status).toBe(409);
    expect(ErrorResponseSchema.parse(taken.body).message).toBe(
      `email: a user with the address ${email} already exists`,
    );
    expect(await db().collection('organizations').countDocuments()).toBe(count);
    expect(count).toBe(before + 1);
  });

  test('when a sign-in has a wrong password or an unknown email, then both answer the same 401 and set no cookie', async () => {
    const { email } = await organizationWithOwner();
    for (const attempt of [
      { email, password: 'wrong password' },
      { email: newEmail('nobody'), password: PASSWORD },
    ]) {
      const answer = await callGateway(url(), 'POST', '/auth/sign-in', {}, attempt);
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({
        status: 'error',
        code: 'invalid_credentials',
        message: 'Wrong email or password',
      });
      expect(answer.headers.get('set-cookie')).toBeNull();
    }
    const malformed = await callGateway(url(), 'POST', '/auth/sign-in', {}, { email: 'x' });
    expect(malformed.status).toBe(422);
  });

  test('when a sign-in or an invitation comes as a form (what another site can post unasked), then 415 and no cookie', async () => {
    const { email } = await organizationWithOwner();
    for (const [path, type, body] of [
      [
        '/auth/sign-in',
        'application/x-www-form-urlencoded',
        new URLSearchParams({ email, password: PASSWORD }).toString(),
      ],
      ['/auth/sign-in', 'text/plain', JSON.stringify({ email, password: PASSWORD })],
      [
        '/auth/accept-invitation',
        'application/x-www-form-urlencoded',
        'invitation=x&password=long+enough',
      ],
    ]) {
      const response = await fetch(url() + path!, {
        method: 'POST',
        headers: { 'content-type': type! },
        body,
      });
      expect({ path, type, status: response.status }).toEqual({ path, type, status: 415 });
      expect(response.headers.get('set-cookie')).toBeNull();
    }
  });

  test('when a session passes its idle or its absolute expiry, then it is refused and removed; when it is used, then its idle expiry moves forward', async () => {
    const { owner } = await organizationWithOwner();
    const sessions = db().collection('sessions');
    const mine = { user_id: owner.user.id };

    const soon = new Date(Date.now() + 5_000);
    await sessions.updateOne(mine, { $set: { idle_expires_at: soon } });
    expect((await callGateway(url(), 'GET', '/auth/session', owner)).status).toBe(200);
    const moved = await sessions.findOne(mine);
    expect(moved!.idle_expires_at.getTime()).toBeGreaterThan(Date.now() + 59 * 60_000);

    await sessions.updateOne(mine, { $set: { idle_expires_at: new Date(Date.now() - 1) } });
    const idle = await callGateway(url(), 'GET', '/auth/session', owner);
    expect(idle.status).toBe(401);
    expect(idle.body.code).toBe('not_signed_in');
    expect(await sessions.countDocuments(mine)).toBe(0);

    const again = await signIn(url(), owner.user.email, PASSWORD);
    await sessions.updateOne(mine, { $set: { expires_at: new Date(Date.now() - 1) } });
    expect((await api('GET', 'getAgents', again)).status).toBe(401);
    expect(await sessions.countDocuments(mine)).toBe(0);
  });

  test('when a user signs out, then the cookie is cleared and the session no longer works', async () => {
    const { owner } = await organizationWithOwner();
    const withoutCsrf = await callGateway(url(), 'POST', '/auth/sign-out', {
      cookie: owner.cookie,
    });
    expect(withoutCsrf.status).toBe(403);
    const out = await callGateway(url(), 'POST', '/auth/sign-out', owner);
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toBe(
      'sb_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0',
    );
    expect((await api('GET', 'getAgents', owner)).status).toBe(401);
  });

  test('when a cookie-authenticated write lacks the CSRF token or has a wrong one, then 403 and nothing is done; reads need none', async () => {
    const { owner, organization } = await organizationWithOwner();
    const body = { name: 'Csrf', email: newEmail(), role: 'agent' };
    for (const csrf of [undefined, 'x'.repeat(32), owner.csrf + 'x']) {
      const refused = await api('POST', 'addAgent', { cookie: owner.cookie, csrf }, body);
      expect(refused.status).toBe(403);
      expect(refused.body.message).toContain('X-CSRF-Token');
    }
    expect(await db().collection('users').countDocuments({ email: body.email })).toBe(0);
    const read = await api('GET', 'getAgents', { cookie: owner.cookie });
    expect(read.status).toBe(200);
    expect(AgentsResponseSchema.parse(read.body).agents).toHaveLength(1);
    const added = await api('POST', 'addAgent', owner, body);
    expect(added.status).toBe(201);
    expect(added.body.agent).toMatchObject({ name: 'Csrf', role: 'agent', active: true });
    expect(organization.company_id).toBe(owner.user.company_id);
  });

  test('when a user changes their password, then their other sessions end, this one goes on, and only the new password signs in', async () => {
    const { owner, email } = await organizationWithOwner();
    const other = await signIn(url(), email, PASSWORD);
    const wrong = await callGateway(url(), 'POST', '/auth/change-password', owner, {
      current_password: 'not it at all',
      new_password: 'a new long password',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe('current_password: the current password is wrong');
    const tooShort = await callGateway(url(), 'POST', '/auth/change-password', owner, {
      current_password: PASSWORD,
      new_password: 'short',
    });
    expect(tooShort.status).toBe(422);

    const changed = await callGateway(url(), 'POST', '/auth/change-password', owner, {
      current_password: PASSWORD,
      new_password: 'a new long password',
    });
    expect(changed.status).toBe(200);
    expect((await callGateway(url(), 'GET', '/auth/session', owner)).status).toBe(200);
    expect((await callGateway(url(), 'GET', '/auth/session', other)).status).toBe(401);
    await expect(signIn(url(), email, PASSWORD)).rejects.toThrow('Wrong email or password');
    await signIn(url(), email, 'a new long password');
  });

  test('when an admin deactivates a user, then their sessions end at once and they cannot sign in; reactivated, they can', async () => {
    const { owner } = await organizationWithOwner();
    const { agent, email, session } = await addSignedInUser(owner, 'agent');
    expect((await api('GET', 'getAgents', session)).status).toBe(200);

    const off = await api('POST', 'updateAgent', owner, { agent_id: agent.id, active: false });
    expect(off.status).toBe(200);
    expect(off.body.agent).toMatchObject({ id: agent.id, active: false });
    expect((await api('GET', 'getAgents', session)).status).toBe(401);
    expect(await db().collection('sessions').countDocuments({ user_id: agent.id })).toBe(0);
    await expect(signIn(url(), email, PASSWORD)).rejects.toThrow('Wrong email or password');

    await api('POST', 'updateAgent', owner, { agent_id: agent.id, active: true });
    await signIn(url(), email, PASSWORD);
  });
});

describe('outside development', () => {
  test('when NODE_ENV is production, then the session cookie is Secure and __Host- prefixed, and only that name is read', async () => {
    const replica = await startReplica({ NODE_ENV: 'production' });
    try {
      const { email } = await organizationWithOwner();
      const answer = await callGateway(
        replica.url,
        'POST',
        '/auth/sign-in',
        {},
        {
          email,
          password: PASSWORD,
        },
      );
      const setCookie = answer.headers.get('set-cookie')!;
      expect(setCookie).toMatch(
        /^__Host-sb_session=([A-Za-z0-9_-]{43}); Path=\/; HttpOnly; SameSite=Lax; Secure; Max-Age=43200$/,
      );
      const secret = /=([^;]+);/.exec(setCookie)![1];
      const session = (cookie: string) =>
        callGateway(replica.url, 'GET', '/auth/session', { cookie });
      expect((await session(`__Host-sb_session=${secret}`)).status).toBe(200);
      expect((await session(`sb_session=${secret}`)).status).toBe(401);
    } finally {
      await replica.stop();
    }
  });
});

describe('failed sign-ins are limited per account and per address', () => {
  let replica: RunningService<GatewayConfig>;
  beforeAll(async () => {
    replica = await startReplica({
      SIGN_IN_FAILURES_PER_ACCOUNT: '3',
      SIGN_IN_FAILURES_PER_ADDRESS: '5',
    });
  });
  afterAll(async () => {
    await replica.stop();
  });

  test('when an account has failed 3 times, then even its right password is refused 429 with Retry-After, and the address is refused after 5 failures over any accounts', async () => {
    const { email } = await organizationWithOwner();
    const { email: otherEmail } = await organizationWithOwner();
    const attempt = (who: string, password: string) =>
      callGateway(replica.url, 'POST', '/auth/sign-in', {}, { email: who, password });
    for (let n = 0; n < 3; n++) expect((await attempt(email, 'wrong password')).status).toBe(401);
    const locked = await attempt(email, PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.body.message).toMatch(
      /^Too many failed sign-ins for this account; retry after \d+ s$/,
    );
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);

    expect((await attempt(otherEmail, PASSWORD)).status).toBe(200);
    expect((await attempt(otherEmail, 'wrong password')).status).toBe(401);
    expect((await attempt(newEmail(), 'wrong password')).status).toBe(401);
    const address = await attempt(otherEmail, PASSWORD);
    expect(address.status).toBe(429);
    expect(address.body.message).toMatch(/^Too many failed sign-ins for this address/);
  });
});

describe('roles', () => {
  test('when an agent manages users, tokens or webhooks, then 403 says only owners and admins may; the agent may list colleagues', async () => {
    const { owner, token } = await organizationWithOwner();
    const { session: agent } = await addSignedInUser(owner, 'agent');
    const { agent: colleague } = await addSignedInUser(owner, 'agent');
    const tokenId = (await api('GET', 'getTokens', owner)).body.tokens[0].token_id as string;
    const attempts: [string, string, Record<string, unknown>?][] = [
      ['POST', 'addAgent', { name: 'Eve', email: newEmail(), role: 'admin' }],
      ['POST', 'updateAgent', { agent_id: colleague.id, role: 'admin' }],
      ['DELETE', 'deleteAgent', { agent_id: colleague.id }],
      ['GET', 'getTokens'],
      ['POST', 'createToken', { name: 'mine' }],
      ['DELETE', 'deleteToken', { token_id: tokenId }],
    ];
    for (const [method, operation, body] of attempts) {
      const answer = await api(method, operation, agent, body);
      expect({ operation, status: answer.status, code: answer.body.code }).toEqual({
        operation,
        status: 403,
        code: 'forbidden',
      });
      expect(answer.body.message).toMatch(
        /^Only the organization's owner and admins can .+; you are signed in as an agent$/,
      );
    }
    const webhooks = await callGateway(url(), 'GET', '/developer/webhooks', agent);
    expect(webhooks.status).toBe(403);
    expect(webhooks.body.message).toBe(
      "Only the organization's owner and admins can manage webhooks; you are signed in as an agent",
    );
    expect((await api('GET', 'getAgents', agent)).body.agents).toHaveLength(3);
    expect((await api('GET', 'getAgents', { token })).status).toBe(200);
  });

  test('when an admin manages users, then it may add and change admins and agents but not the owner nor itself', async () => {
    const { owner } = await organizationWithOwner();
    const { agent: admin, session } = await addSignedInUser(owner, 'admin');
    const added = await api('POST', 'addAgent', session, { name: 'Al', email: newEmail() });
    expect(added.status).toBe(201);
    expect(added.body.agent).toMatchObject({ role: 'agent', invitation_pending: true });
    const promoted = await api('POST', 'updateAgent', session, {
      agent_id: added.body.agent.id,
      role: 'admin',
      name: 'Alan',
    });
    expect(promoted.body.agent).toMatchObject({ role: 'admin', name: 'Alan' });

    const onOwner = await api('POST', 'updateAgent', session, {
      agent_id: owner.user.id,
      role: 'agent',
    });
    expect(onOwner.status).toBe(403);
    expect(onOwner.body.message).toBe("The organization's owner cannot be changed or removed here");
    const deleteOwner = await api('DELETE', 'deleteAgent', session, { agent_id: owner.user.id });
    expect(deleteOwner.status).toBe(403);
    const self = await api('POST', 'updateAgent', session, { agent_id: admin.id, active: false });
    expect(self.status).toBe(409);
    const toOwner = await api('POST', 'updateAgent', session, {
      agent_id: added.body.agent.id,
      role: 'owner',
    });
    expect(toOwner.status).toBe(422);
    expect(toOwner.body.message).toBe('role: must be admin or agent');
  });

  test('when an API token manages users or tokens, then it may list and revoke but not create', async () => {
    const { token, owner } = await organizationWithOwner();
    const add = await api('POST', 'addAgent', { token }, { name: 'X', email: newEmail() });
    expect(add.status).toBe(403);
    expect(add.body.message).toMatch(
      /^Only a signed-in owner or admin can add users; an API token cannot/,
    );
    expect((await api('POST', 'createToken', { token }, { name: 'more' })).status).toBe(403);
    const second = await api('POST', 'createToken', owner, { name: 'second' });
    expect((await api('GET', 'getTokens', { token })).body.tokens).toHaveLength(2);
    const revoked = await api(
      'DELETE',
      'deleteToken',
      { token },
      { token_id: second.body.token_id },
    );
    expect(revoked.body).toEqual({
      status: 'success',
      token_id: second.body.token_id,
      revoked: true,
    });
    expect((await api('GET', 'getTokens', { token: second.body.token })).status).toBe(401);
  });
});

describe('bad input and tenant isolation', () => {
  test('when an operation gets bad input, then 422 names the field', async () => {
    const { owner } = await organizationWithOwner();
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['POST', 'addAgent', { name: 'A' }, 'email: must be an email address'],
      [
        'POST',
        'addAgent',
        { name: 'A', email: 'not-an-email' },
        'email: must be a valid email address',
      ],
      ['POST', 'addAgent', { name: ' ', email: newEmail() }, 'name: must not be empty'],
      ['POST', 'updateAgent', { agent_id: 1 }, 'name: name, role or active is required'],
      [
        'POST',
        'updateAgent',
        { agent_id: 'x', active: false },
        'agent_id: must be a positive integer',
      ],
      [
        'POST',
        'updateAgent',
        { agent_id: 1, active: 'maybe' },
        'active: must be true, false, 1 or 0',
      ],
      ['DELETE', 'deleteAgent', {}, 'agent_id: must be a positive integer'],
      ['POST', 'createToken', {}, 'name: must be a string'],
      ['DELETE', 'deleteToken', { token_id: 'sb_123' }, 'token_id: must be a token id (tok_…)'],
    ];
    for (const [method, operation, body, message] of cases) {
      const answer = await api(method, operation, owner, body);
      expect({ operation, status: answer.status, message: answer.body.message }).toEqual({
        operation,
        status: 422,
        message,
      });
    }
    const wrongMethod = await api('GET', 'addAgent', owner);
    expect(wrongMethod.status).toBe(405);
  });

  test("when an organization names another organization's user or token, then 404 and nothing changes", async () => {
    const mine = await organizationWithOwner();
    const theirs = await organizationWithOwner();
    const { agent: theirAgent, session: theirSession } = await addSignedInUser(
      theirs.owner,
      'agent',
    );

    const listed = AgentsResponseSchema.parse((await api('GET', 'getAgents', mine.owner)).body);
    expect(listed.agents.map((agent) => agent.email)).toEqual([mine.email]);
    const update = await api('POST', 'updateAgent', mine.owner, {
      agent_id: theirAgent.id,
      active: false,
    });
    expect(update.status).toBe(404);
    const remove = await api('DELETE', 'deleteAgent', mine.owner, { agent_id: theirAgent.id });
    expect(remove.status).toBe(404);
    const revoke = await api('DELETE', 'deleteToken', mine.owner, { token_id: theirs.token_id });
    expect(revoke.status).toBe(404);

    expect((await api('GET', 'getAgents', theirSession)).status).toBe(200);
    expect((await api('GET', 'getTokens', { token: theirs.token })).body.tokens).toHaveLength(1);
  });
});

describe('agents quota', () => {
  test('when a free organization (1 agent: its owner) adds a user, then quota_exceeded and nothing is created', async () => {
    const { owner, organization } = await organizationWithOwner('free');
    const email = newEmail();
    const answer = await api('POST', 'addAgent', owner, { name: 'One too many', email });
    expect(answer.status).toBe(429);
    expect(answer.body).toEqual({
      status: 'error',
      code: 'quota_exceeded',
      message: `${QUOTA_MESSAGE_PREFIX} of 1 agents on the free plan`,
    });
    expect(
      await db().collection('users').countDocuments({ company_id: organization.company_id }),
    ).toBe(1);
    expect(
      await db().collection('invitations').countDocuments({ company_id: organization.company_id }),
    ).toBe(0);
  });

  test('when 15 users are added at once to a standard organization (10 agents), then exactly 9 are added and the rest answer quota_exceeded; a deleted user frees a seat', async () => {
    const { owner, organization } = await organizationWithOwner('standard');
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, n) =>
        api('POST', 'addAgent', owner, { name: `Agent ${n}`, email: newEmail(`agent${n}`) }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array(9).fill(201), ...Array(6).fill(429)]);
    for (const refused of answers.filter((answer) => answer.status === 429)) {
      expect(refused.body.message).toMatch(new RegExp(`^${QUOTA_MESSAGE_PREFIX}`));
    }
    const company = { company_id: organization.company_id };
    expect(await db().collection('users').countDocuments(company)).toBe(10);
    expect(await db().collection('invitations').countDocuments(company)).toBe(9);
    expect(
      (
        await db()
          .collection('agent_seats')
          .findOne({ _id: organization.company_id as never })
      )?.used,
    ).toBe(10);

    const last = await api('POST', 'addAgent', owner, { name: 'Late', email: newEmail() });
    expect(last.status).toBe(429);
    const removed = await api('DELETE', 'deleteAgent', owner, {
      agent_id: answers.find((a) => a.status === 201)!.body.agent.id,
    });
    expect(removed.body).toMatchObject({ status: 'success', deleted: true });
    expect((await api('POST', 'addAgent', owner, { name: 'Now', email: newEmail() })).status).toBe(
      201,
    );
  });

  test('when an add fails on a taken email, then its seat is given back', async () => {
    const { owner, organization } = await organizationWithOwner('standard');
    const { email } = await organizationWithOwner('standard');
    const taken = await api('POST', 'addAgent', owner, { name: 'Dup', email });
    expect(taken.status).toBe(409);
    expect(
      (
        await db()
          .collection('agent_seats')
          .findOne({ _id: organization.company_id as never })
      )?.used,
    ).toBe(1);
  });
});

describe('API tokens', () => {
  test('when an owner creates a token, then its value is shown once and lists show it masked, with when it was last used', async () => {
    const { owner } = await organizationWithOwner();
    const created = await api('POST', 'createToken', owner, { name: 'Zapier' });
    expect(created.status).toBe(201);
    const token = CreateNamedTokenResponseSchema.parse(created.body);
    expect(token).toMatchObject({ name: 'Zapier', last_used_at: null });
    expect(token.masked_token).toBe(`sb_****${token.token.slice(-4)}`);

    const before = TokensResponseSchema.parse((await api('GET', 'getTokens', owner)).body);
    expect(JSON.stringify(before)).not.toContain(token.token);
    expect(before.tokens.map((listed) => listed.name)).toEqual(['API token', 'Zapier']);

    expect((await api('GET', 'getAgents', { token: token.token })).status).toBe(200);
    const stored = () => db().collection('api_tokens').findOne({ token_id: token.token_id });
    for (let n = 0; n < 50 && !(await stored())?.last_used_at; n++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const after = TokensResponseSchema.parse((await api('GET', 'getTokens', owner)).body);
    expect(after.tokens[1]!.last_used_at).not.toBeNull();
  });

  test('when a token is deleted, then the gateway that deleted it refuses it at once and another replica within TOKEN_CACHE_TTL_MS', async () => {
    const ttlMs = 1_000;
    const replica = await startReplica({ TOKEN_CACHE_TTL_MS: String(ttlMs) });
    try {
      const { owner } = await organizationWithOwner();
      const { token, token_id } = CreateNamedTokenResponseSchema.parse(
        (await api('POST', 'createToken', owner, { name: 'Leaked' })).body,
      );
      const onReplica = () => callGateway(replica.url, 'GET', '/api/svc/getAgents', { token });
      expect((await onReplica()).status).toBe(200); // now in the replica's cache

      expect((await api('DELETE', 'deleteToken', owner, { token_id })).status).toBe(200);
      const revokedAt = Date.now();
      expect((await api('GET', 'getAgents', { token })).status).toBe(401);

      await new Promise((resolve) => setTimeout(resolve, revokedAt + ttlMs + 50 - Date.now()));
      const late = await onReplica();
      expect(late.status).toBe(401);
      expect(late.body.message).toBe('Invalid token');
    } finally {
      await replica.stop();
    }
  });
});
