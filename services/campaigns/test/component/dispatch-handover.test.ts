// With several replicas, the replica that started a campaign hands its pages over; the scheduler
// (on whichever replica holds its lease) resumes only a handing-over that has stopped moving.
import mongoose, { type Connection } from 'mongoose';
import {
  createCampaignStore,
  type StoredCampaign,
} from '../../src/data-access/campaigns/campaign-store';
import { MONGODB_URL, uniquePrefix } from '../../../../test/support/test-infra';

let db: Connection;
let store: ReturnType<typeof createCampaignStore>;

beforeAll(async () => {
  db = await mongoose
    .createConnection(MONGODB_URL, { dbName: `${uniquePrefix('handover')}campaigns` })
    .asPromise();
  store = createCampaignStore(db);
  await store.init();
});

afterAll(async () => {
  await db.dropDatabase();
  await db.close();
});

const started = (
  id: number,
  updated_at: Date,
): Omit<StoredCampaign, 'pending_events' | 'pending_ids'> =>
  ({
    _id: String(id),
    id,
    company_id: 5,
    plan: 'premium',
    plan_started_at: new Date('2026-01-01T00:00:00Z'),
    name: `Campaign ${id}`,
    type: 'regular',
    status: 'started',
    message: { type: 'text', text: 'Hello' },
    variables: [],
    audience: { type: 'all' },
    keywords: null,
    scheduled_at: null,
    start_step: 'none',
    start_claimed_at: null,
    quota_month: '2026-11',
    total_contacts: 500,
    sent: 0,
    delivered: 0,
    read: 0,
    failed: 0,
    settled: 0,
    cursor: 100,
    dispatched: 100,
    dispatch_done: false,
    created_at: updated_at,
    started_at: updated_at,
    completed_at: null,
    updated_at,
  }) as never;

test('when a campaign is being handed over (its last page moments ago) and another stopped moving, then only the stopped one is offered for resuming', async () => {
  const now = Date.now();
  await store.insert(started(1, new Date(now - 2_000)));
  await store.insert(started(2, new Date(now - 60_000)));
  const resumable = await store.undispatched(new Date(now - 15_000), 20);
  expect(resumable.map((campaign) => campaign.id)).toEqual([2]);
});
