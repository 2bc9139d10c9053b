import {
  SERVICE_WINDOW_MS,
  outsideServiceWindow,
  serviceWindowRefusal,
} from '../../src/domain/sending/service-window';

const now = new Date('2026-11-26T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('the 24-hour customer service window', () => {
  test('when the contact wrote within 24 hours, then every kind of message may go', () => {
    for (const kind of ['text', 'buttons', 'media', 'template'] as const) {
      expect(outsideServiceWindow({ kind }, ago(SERVICE_WINDOW_MS), now)).toBeUndefined();
    }
  });

  test('when the contact last wrote more than 24 hours ago, then free-form messages are refused naming the window and templates still go', () => {
    const lastWrote = ago(SERVICE_WINDOW_MS + 1);
    for (const kind of ['text', 'buttons', 'media'] as const) {
      expect(outsideServiceWindow({ kind }, lastWrote, now)).toBe(
        'Outside the 24-hour customer service window: the contact last wrote at ' +
          '2026-11-25T11:59:59.999Z, more than 24 hours ago, so the provider delivers only ' +
          'template messages until they write again; send a template (sendtemplatemessage)',
      );
    }
    expect(outsideServiceWindow({ kind: 'template' }, lastWrote, now)).toBeUndefined();
  });

  test('when the contact never wrote (as far as we know), then the send is left to the provider', () => {
    expect(outsideServiceWindow({ kind: 'text' }, null, now)).toBeUndefined();
    expect(outsideServiceWindow({ kind: 'text' }, undefined, now)).toBeUndefined();
  });
});

describe('the window check of a send, with what this process last saw', () => {
  const contact = { id: 5, phone: '15550001', name: 'Ana', subscription: 'subscribed' } as never;
  /** A conversation store that remembers `remembered` and holds `stored`; counts its reads. */
  function conversations(remembered: Date | null | undefined, stored: Date | null) {
    const reads: number[] = [];
    return {
      reads,
      rememberedInbound: () => remembered,
      find: async (_company: number, contact_id: number) => {
        reads.push(contact_id);
        return { last_inbound_at: stored } as never;
      },
    };
  }
  const check = (store: ReturnType<typeof conversations>) =>
    serviceWindowRefusal(store, {}, { kind: 'text' }, contact, 1, now);

  test('when the contact was seen writing within the window, or seen never writing, then the send goes without a read', async () => {
    for (const remembered of [ago(60_000), null]) {
      const store = conversations(remembered, ago(60_000));
      await expect(check(store)).resolves.toBeUndefined();
      expect(store.reads).toEqual([]);
    }
  });

  test('when what was seen is outside the window, then it is read again before refusing, and a newer message lets the send go', async () => {
    const stale = conversations(ago(SERVICE_WINDOW_MS + 1), ago(60_000));
    await expect(check(stale)).resolves.toBeUndefined();
    expect(stale.reads).toEqual([5]);
    const outside = conversations(ago(SERVICE_WINDOW_MS + 1), ago(SERVICE_WINDOW_MS + 1));
    await expect(check(outside)).rejects.toMatchObject({ code: 'outside_service_window' });
    expect(outside.reads).toEqual([5]);
  });

  test('when nothing was seen, then the conversation is read', async () => {
    const store = conversations(undefined, ago(SERVICE_WINDOW_MS + 1));
    await expect(check(store)).rejects.toMatchObject({ code: 'outside_service_window' });
    expect(store.reads).toEqual([5]);
  });
});
