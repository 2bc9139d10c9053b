import {
  PROVIDER_STATUS_BATCH_MAX,
  ProviderQueueMessageSchema,
  providerEventsOf,
  type ProviderEventMessage,
} from '../../src';

const status = (n: number): ProviderEventMessage => ({
  id: `event-${n}:0:0:provider.status`,
  company_id: 7,
  inbound_event_id: `event-${n}`,
  waba_id: 'waba-1',
  field: 'messages',
  value: { statuses: [{ id: `wamid.${n}`, status: 'delivered', timestamp: '1700000000' }] },
  received_at: '2026-11-26T12:00:00.000Z',
});

describe('provider statuses on messaging.provider-events', () => {
  test('when one status travels alone, then it reads as the one event it is', () => {
    const message = ProviderQueueMessageSchema.parse(status(1));
    expect(providerEventsOf(message)).toEqual([status(1)]);
  });

  test('when statuses travel as a batch, then each reads whole, in the order sent', () => {
    const message = ProviderQueueMessageSchema.parse({
      id: 'batch-1',
      statuses: [status(1), status(2), status(3)],
    });
    expect(providerEventsOf(message)).toEqual([status(1), status(2), status(3)]);
  });

  test('when a batch is empty, too large or holds a malformed status, then it is refused', () => {
    const parse = (statuses: unknown[]) =>
      ProviderQueueMessageSchema.safeParse({ id: 'batch-1', statuses }).success;
    expect(parse([])).toBe(false);
    expect(parse(Array.from({ length: PROVIDER_STATUS_BATCH_MAX + 1 }, (_, n) => status(n)))).toBe(
      false,
    );
    expect(parse([status(1), { ...status(2), company_id: 0 }])).toBe(false);
    expect(parse(Array.from({ length: PROVIDER_STATUS_BATCH_MAX }, (_, n) => status(n)))).toBe(
      true,
    );
  });
});
