import { randomUUID } from 'node:crypto';
import {
  BrokerEventMessageSchema,
  EVENT_BATCH_MAX,
  EXCHANGES,
  LiveEventsQueueMessageSchema,
  QUEUES,
  brokerEventsOf,
  queuesRoutedTo,
  topicMatches,
  type BrokerEvent,
} from '../../src';

const sent = (n: number): BrokerEvent => ({
  id: randomUUID(),
  event: 'message_sent',
  timestamp: '2026-11-26T12:00:00.000Z',
  company_id: 7,
  data: {
    message_id: n,
    message_wamid: `wamid.${n}`,
    contact_id: 3,
    phone: '+15550001111',
    company_id: 7,
  },
});

describe('events on svc.events, alone or in a batch', () => {
  test('when one event travels alone, then it reads as the one event it is', () => {
    const event = sent(1);
    expect(brokerEventsOf(BrokerEventMessageSchema.parse(event))).toEqual([event]);
  });

  test('when events travel as a batch, then each reads whole, in the order sent', () => {
    const events = [sent(1), sent(2), sent(3)];
    const message = BrokerEventMessageSchema.parse({ id: 'batch-1', events });
    expect(brokerEventsOf(message)).toEqual(events);
    expect(brokerEventsOf(LiveEventsQueueMessageSchema.parse({ id: 'batch-1', events }))).toEqual(
      events,
    );
  });

  test('when a batch is empty, too large or holds a malformed event, then it is refused', () => {
    const parse = (events: unknown[]) =>
      BrokerEventMessageSchema.safeParse({ id: 'batch-1', events }).success;
    expect(parse([])).toBe(false);
    expect(parse(Array.from({ length: EVENT_BATCH_MAX + 1 }, (_, n) => sent(n + 1)))).toBe(false);
    expect(parse([sent(1), { ...sent(2), company_id: 0 }])).toBe(false);
    expect(parse([sent(1), { ...sent(2), data: { message_id: 2 } }])).toBe(false);
    expect(parse(Array.from({ length: EVENT_BATCH_MAX }, (_, n) => sent(n + 1)))).toBe(true);
    expect(BrokerEventMessageSchema.safeParse({ events: [sent(1)] }).success).toBe(false);
  });

  test('when an event or a batch is refused, then the reason names the offending field', () => {
    const issuesOf = (value: unknown) =>
      BrokerEventMessageSchema.safeParse(value).error?.issues.map((issue) => issue.path.join('.'));
    expect(issuesOf({ ...sent(1), data: { ...sent(1).data, message_id: 'x' } })).toEqual([
      'data.message_id',
    ]);
    expect(issuesOf({ id: 'batch-1', events: [sent(1), { ...sent(2), company_id: 0 }] })).toEqual([
      'events.1.company_id',
    ]);
  });
});

describe('where a routing key leads', () => {
  test('when topic patterns are matched, then * takes one word and # any number', () => {
    expect(topicMatches('#', 'message_sent.direct')).toBe(true);
    expect(topicMatches('message_sent.#', 'message_sent')).toBe(true);
    expect(topicMatches('message_sent.#', 'message_sent.direct')).toBe(true);
    expect(topicMatches('message_sent', 'message_sent.direct')).toBe(false);
    expect(topicMatches('message_*.direct', 'message_sent.direct')).toBe(false);
    expect(topicMatches('*.direct', 'message_sent.direct')).toBe(true);
    expect(topicMatches('*.direct', 'direct')).toBe(false);
    expect(topicMatches('a.#.c', 'a.c')).toBe(true);
    expect(topicMatches('a.#.c', 'a.b.b.c')).toBe(true);
  });

  test("when a message's outcomes are routed, then a direct one's and a campaign's reach different queues, and every outcome of one kind the same", () => {
    const direct = [QUEUES.gatewayLiveEvents, QUEUES.webhooksEvents].sort();
    const campaign = [QUEUES.campaignsEvents, ...direct].sort();
    for (const name of ['message_sent', 'message_failed', 'message_status_updated']) {
      expect(queuesRoutedTo(EXCHANGES.events, `${name}.direct`)).toEqual(direct);
      expect(queuesRoutedTo(EXCHANGES.events, name)).toEqual(campaign);
    }
    expect(queuesRoutedTo(EXCHANGES.events, 'contact_created')).toEqual([QUEUES.webhooksEvents]);
    expect(queuesRoutedTo(EXCHANGES.events, 'message_received')).toEqual(
      [QUEUES.campaignsAutomation, ...direct].sort(),
    );
  });
});
