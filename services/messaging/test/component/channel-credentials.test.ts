import { randomBytes } from 'node:crypto';
import mongoose, { type Connection } from 'mongoose';
import { INTERNAL_SECRET_HEADER, SendMessageResponseSchema } from '@switchboard/contracts';
import { secretKeysSchema } from '@switchboard/service-kit';
import { startService as startMessaging } from '../../src/start-service';
import { MONGODB_URL, type LooseJson } from '../../../../test/support/test-infra';
import {
  startMessagingSystem,
  uniquePhone,
  type MessagingSystem,
  type Organization,
} from '../support/messaging-harness';

jest.setTimeout(90_000);

let system: MessagingSystem;
let db: Connection;

beforeAll(async () => {
  system = await startMessagingSystem('chancred');
  db = await mongoose
    .createConnection(MONGODB_URL, { dbName: `${system.dbPrefix}messaging` })
    .asPromise();
});

afterAll(async () => {
  await db?.close();
  await system?.stop();
});

const CREDENTIALS = ['inbound_token', 'access_token', 'app_secret', 'verify_token'];

/** The credentials of an organization's channel, as its admin and the provider know them. */
function credentialsOf(org: Organization) {
  const { channel } = org.created;
  return {
    inbound_token: new URL(channel.inbound_url).pathname.split('/').pop()!,
    access_token: system.simulator.state.channels.get(channel.phone_number_id)!.registration
      .access_token,
    app_secret: channel.app_secret,
    verify_token: channel.verify_token,
  };
}

const storedChannel = (company_id: number) => db.collection('channels').findOne({ company_id });

async function lookUpByToken(messagingUrl: string, token: string) {
  const response = await fetch(`${messagingUrl}/internal/channels/by-inbound-token/${token}`, {
    headers: { [INTERNAL_SECRET_HEADER]: system.internalSecret },
  });
  return { status: response.status, body: (await response.json()) as LooseJson };
}

const keyOf = (kid: string) => `${kid}:${randomBytes(32).toString('base64')}`;

// Inbound keeps a copy of each channel to verify the provider's webhooks; that the copy holds
// the secrets only sealed is inbound's own test. Here: what messaging stores, and what it hands
// inbound when asked by the channel's token.
test('when an organization is created and the provider writes, then its channel credentials are stored only sealed, and inbound is still handed them open to verify the webhook', async () => {
  const org = await system.newOrganization('standard', 'Sealed Co');
  const secrets = credentialsOf(org);
  await system.customerWrites(org, { from: uniquePhone(), text: 'hello' });

  const stored = await storedChannel(org.company_id);
  for (const name of CREDENTIALS) {
    expect(stored).not.toHaveProperty(name);
    expect(stored?.[`${name}_sealed`]).toMatch(/^v2\.internal\./);
  }
  expect(stored?.inbound_token_digest).toMatch(/^internal\./);
  const handed = await lookUpByToken(system.stack.messaging.url, secrets.inbound_token);
  expect(handed.body.channel).toMatchObject({
    company_id: org.company_id,
    app_secret: secrets.app_secret,
    verify_token: secrets.verify_token,
  });
  const everything = JSON.stringify(stored);
  for (const [name, value] of Object.entries(secrets)) {
    expect({ name, found: everything.includes(value) }).toEqual({ name, found: false });
  }
});

test('when channels were written in clear by an earlier version, then two replicas starting at once seal them, and they still send, receive and are found by their token', async () => {
  const org = await system.newOrganization('standard', 'Clear Co');
  const secrets = credentialsOf(org);
  const messaging = system.stack.messaging;
  await messaging.stop();

  // The shape and the index of the earlier version, for this organization and one more.
  const current = (await storedChannel(org.company_id))!;
  const kept = Object.fromEntries(
    Object.entries(current).filter(
      ([name]) => !name.endsWith('_sealed') && name !== 'inbound_token_digest',
    ),
  );
  const channels = db.collection('channels');
  await channels.replaceOne({ _id: current._id }, { ...kept, ...secrets });
  const other = {
    company_id: 900_000 + Math.floor(Math.random() * 99_999),
    inbound_token: randomBytes(32).toString('base64url'),
    provider_base_url: system.simulatorUrl,
    api_version: 'v23.0',
    phone_number_id: String(100_000_000_000_000 + Math.floor(Math.random() * 1e12)),
    waba_id: '123456789012345',
    access_token: 'EAA' + randomBytes(48).toString('base64url'),
    app_secret: randomBytes(16).toString('hex'),
    verify_token: randomBytes(24).toString('base64url'),
    display_phone_number: '15550000000',
    verified_name: 'Other Co',
    created_at: new Date(),
    updated_at: new Date(),
  };
  await channels.insertOne({ ...other });
  await channels.createIndex({ inbound_token: 1 }, { unique: true, name: 'inbound_token_1' });

  const [first, second] = await Promise.all([
    startMessaging({ ...messaging.config, PORT: messaging.port }),
    startMessaging({ ...messaging.config, PORT: 0 }),
  ]);
  system.stack.messaging = first;
  try {
    for (const company_id of [org.company_id, other.company_id]) {
      const stored = await storedChannel(company_id);
      for (const name of CREDENTIALS) {
        expect(stored).not.toHaveProperty(name);
        expect(stored?.[`${name}_sealed`]).toMatch(/^v2\.internal\./);
      }
      const text = JSON.stringify(stored);
      for (const value of [...Object.values(secrets), other.access_token, other.app_secret]) {
        expect(text).not.toContain(value);
      }
    }
    for (const replica of [first, second]) {
      const found = await lookUpByToken(replica.url, other.inbound_token);
      expect(found.status).toBe(200);
      expect(found.body.channel).toMatchObject({
        company_id: other.company_id,
        app_secret: other.app_secret,
        verify_token: other.verify_token,
      });
    }

    // The access token opens (the provider accepts the send), the inbound token and app secret
    // still verify the provider's webhooks.
    const sent = await org.api.post('sendMessageToPhoneNumber', {
      phone: uniquePhone(),
      message: 'still sending',
    });
    expect(sent.status).toBe(200);
    expect(SendMessageResponseSchema.parse(sent.body).message_wamid).toMatch(/^wamid\./);
    await system.customerWrites(org, { from: uniquePhone(), text: 'still receiving' });

    // The index on the clear token is gone: new channels (without it) do not collide.
    await system.newOrganization('standard', 'New Co 1');
    await system.newOrganization('standard', 'New Co 2');
    const indexes = (await channels.indexes()).map((index) => index.name);
    expect(indexes).not.toContain('inbound_token_1');
  } finally {
    await second.stop();
  }
});

test('when the keys rotate, then a restart re-seals every credential with the new key, the old key can then be dropped, and the channel keeps working', async () => {
  const org = await system.newOrganization('standard', 'Rotating Co');
  const { inbound_token } = credentialsOf(org);
  const first = keyOf('first');
  const second = keyOf('second');
  const kids = async () => {
    const stored = await storedChannel(org.company_id);
    return [
      ...CREDENTIALS.map((name) => String(stored?.[`${name}_sealed`]).split('.')[1]),
      String(stored?.inbound_token_digest).split('.')[0],
    ];
  };

  await system.restartMessaging({ SECRET_ENCRYPTION_KEYS: secretKeysSchema.parse(first) });
  expect(await kids()).toEqual(Array(5).fill('first'));
  await system.restartMessaging({
    SECRET_ENCRYPTION_KEYS: secretKeysSchema.parse(`${second},${first}`),
  });
  expect(await kids()).toEqual(Array(5).fill('second'));
  await system.restartMessaging({ SECRET_ENCRYPTION_KEYS: secretKeysSchema.parse(second) });

  const found = await lookUpByToken(system.stack.messaging.url, inbound_token);
  expect(found.status).toBe(200);
  expect(found.body.channel.company_id).toBe(org.company_id);
  const sent = await org.api.post('sendMessageToPhoneNumber', {
    phone: uniquePhone(),
    message: 'after rotation',
  });
  expect(sent.status).toBe(200);
});
