import { CONTACTS_INTERNAL_PATHS } from '@switchboard/contracts';
import { createLogger } from '@switchboard/service-kit';
import { createContactsClient } from '../../src/outbound/contacts-client';
import { startContactsStub, type ContactsStub } from '../support/contacts-stub';

const logger = createLogger('contacts-cache-test', 'silent');
const TTL_MS = 1_000;
let stub: ContactsStub;

beforeAll(async () => {
  stub = await startContactsStub();
});

afterAll(async () => {
  await stub.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const resolves = () =>
  stub.calls.filter((call) => call.route === `POST ${CONTACTS_INTERNAL_PATHS.resolve}`).length;

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(5);
}

describe('the recipients messaging remembers', () => {
  test('when a remembered phone is sent to again late in its entry’s life, then it is answered from memory and renewed in the background, so the send after its first expiry asks contacts nothing', async () => {
    const contacts = createContactsClient({
      baseURL: stub.url,
      internalSecret: 'test-secret',
      logger,
      cacheTtlMs: TTL_MS,
    });
    const storedAt = Date.now();
    const first = await contacts.resolve(7, '+15550002222', {});
    expect(resolves()).toBe(1);

    // Late in the entry's life: answered from memory, renewed behind the answer.
    await sleep(TTL_MS * 0.9 - (Date.now() - storedAt));
    expect(await contacts.resolve(7, '+15550002222', {})).toEqual(first);
    await until(() => resolves() === 2);

    // Past the first entry's life: the renewed one answers.
    await sleep(Math.max(0, TTL_MS * 1.1 - (Date.now() - storedAt)));
    expect(await contacts.resolve(7, '+15550002222', {})).toEqual(first);
    expect(resolves()).toBe(2);
    await contacts.shutdown();
  });

  test('when a remembered phone is sent to early in its entry’s life, then contacts is not asked', async () => {
    const contacts = createContactsClient({
      baseURL: stub.url,
      internalSecret: 'test-secret',
      logger,
      cacheTtlMs: 60_000,
    });
    const before = resolves();
    await contacts.resolve(7, '+15550003333', {});
    await contacts.resolve(7, '+15550003333', {});
    await sleep(20);
    expect(resolves()).toBe(before + 1);
    await contacts.shutdown();
  });
});
