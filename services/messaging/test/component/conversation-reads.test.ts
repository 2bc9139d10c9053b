// The service window check of a send reads the conversation of each contact this process has not
// seen lately: a burst of first sends (an imported list, a campaign) reads them together.
import mongoose, { type Connection } from 'mongoose';
import { createConversationStore } from '../../src/data-access/conversation-store';
import { MONGODB_URL, uniquePrefix } from '../../../../test/support/test-infra';

let db: Connection;
let store: ReturnType<typeof createConversationStore>;
const conversationFinds: string[] = [];

beforeAll(async () => {
  db = await mongoose
    .createConnection(MONGODB_URL, {
      dbName: `${uniquePrefix('convreads')}messaging`,
      monitorCommands: true,
    })
    .asPromise();
  db.getClient().on('commandStarted', (event) => {
    if (event.commandName === 'find' && event.command.find === 'conversations') {
      conversationFinds.push(event.requestId.toString());
    }
  });
  store = createConversationStore(db);
  await store.init();
});

afterAll(async () => {
  await db.dropDatabase();
  await db.close();
});

test('when 20 contacts are looked up together, then each gets its own conversation (or none) from a shared read, and is remembered', async () => {
  const wroteAt = new Date(Date.now() - 60_000);
  await db.collection('conversations').insertOne({
    _id: '7:5' as never,
    company_id: 7,
    contact_id: 5,
    phone: '393470000005',
    contact_name: 'Ana',
    last_message_id: 1,
    unread_ids: [1],
    has_unread: true,
    status: 'open',
    assigned_agent_id: null,
    last_inbound_at: wroteAt,
    agent_replied_at: null,
    updated_at: wroteAt,
  });
  const before = conversationFinds.length;

  const found = await Promise.all(
    Array.from({ length: 20 }, (_, contact_id) => store.find(7, contact_id)),
  );

  expect(found.map((conversation) => conversation?._id ?? null)).toEqual(
    Array.from({ length: 20 }, (_, contact_id) => (contact_id === 5 ? '7:5' : null)),
  );
  expect(found[5]?.last_inbound_at).toEqual(wroteAt);
  expect(store.rememberedInbound(7, 5)).toEqual(wroteAt);
  expect(store.rememberedInbound(7, 6)).toBeNull();
  // The first alone (nothing to wait for), the other 19 together.
  expect(conversationFinds.length - before).toBeLessThanOrEqual(2);
});
