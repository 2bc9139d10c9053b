import { z } from 'zod';
import { ConsoleEventSchema } from '../events/console-events';
import { BrokerEventSchema } from '../events/envelope';
import { BrokerEventBatchSchema, eventOrBatch } from '../events/event-batch';
import { defineOperation } from './operation';

export const LIVE_EVENTS_PATH = '/api/svc/events/stream';

/**
 * The `data:` of an event frame of the live stream: the event as the services published it
 * (`svc.events` or `svc.console`), of the signed-in user's organization only. The frame's
 * `event:` is the event's name and its `id:` the event's place in the organization's stream.
 */
export const LiveEventSchema = z.union([BrokerEventSchema, ConsoleEventSchema]);
export type LiveEvent = z.infer<typeof LiveEventSchema>;

/** What `gateway.live-events` carries: one event (of `svc.events` or `svc.console`), or a batch from `svc.events`. */
export const LiveEventsQueueMessageSchema = eventOrBatch(LiveEventSchema, BrokerEventBatchSchema);
export type LiveEventsQueueMessage = z.infer<typeof LiveEventsQueueMessageSchema>;

/**
 * Frames of the stream that are not events. `ready`: the stream is open (its `id:` is where it
 * starts, so a reconnect resumes from there even before any event came). `reset`: events after
 * the `Last-Event-ID` given are no longer kept (or the id was never given out): the client
 * reloads what it shows, then follows the stream from the `reset` frame's `id:`.
 */
export const LIVE_CONTROL_EVENTS = ['ready', 'reset'] as const;
export const LiveControlDataSchema = z.strictObject({
  /** When the stream's live part began on the gateway, ISO 8601. */
  timestamp: z.iso.datetime({ offset: true }),
});

/** An event id as the stream gives it: a non-negative decimal integer. */
export const LiveEventIdSchema = z
  .string({ error: 'must be an event id from the stream' })
  .regex(/^\d{1,15}$/, { error: 'must be an event id from the stream (digits)' });

export const LiveEventsQuerySchema = z.object({
  /**
   * Where to resume, for a client that cannot send the `Last-Event-ID` header (which
   * EventSource sends by itself on a reconnect, and which wins over this).
   */
  last_event_id: LiveEventIdSchema.optional(),
});

export const LIVE_EVENTS_DESCRIPTION =
  'Server-sent events (`text/event-stream`) for the signed-in user: new messages, their ' +
  'statuses, conversation assignment and status changes (`conversation_updated`) and campaign ' +
  "progress (`campaign_progress`, a few per second per campaign) of the user's own " +
  "organization, in order. Each event frame has `id:` (the event's place in the stream), " +
  '`event:` (its name) and `data:` (the event as JSON: `id`, `event`, `timestamp`, ' +
  "`company_id`, `data`, and `campaign_id` for a campaign's message). The first frame is " +
  '`ready`; a comment line comes every 15 seconds when nothing else does. A reconnect that ' +
  'sends `Last-Event-ID` (EventSource does) gets every event it missed while they are kept ' +
  '(at least 15 minutes), otherwise a `reset` frame: reload, then follow on. The stream ends ' +
  'when the session ends (sign-out, deactivation, expiry), when the client reads too slowly, ' +
  'and when the gateway stops; reconnect with the last id. A user may hold a few streams at ' +
  'once (429 past it). Session cookie only: API clients use webhooks.';

export const LIVE_EVENT_OPERATIONS = [
  defineOperation({
    owner: 'gateway',
    method: 'get',
    path: LIVE_EVENTS_PATH,
    operationId: 'streamLiveEvents',
    summary: "Live updates of the signed-in user's organization (server-sent events)",
    description: LIVE_EVENTS_DESCRIPTION,
    tags: ['live'],
    auth: 'session',
    request: { query: LiveEventsQuerySchema },
    responses: { 200: LiveEventSchema },
    eventStream: true,
  }),
];

/**
 * A batch of the live event log, once written, as the gateway fans it out to its replicas on
 * `gateway.live-feed`: each entry with its id (`seq`) and organization, the event as JSON text.
 */
export const LiveFeedBatchSchema = z.strictObject({
  entries: z.array(
    z.strictObject({
      seq: z.number().int().positive(),
      company_id: z.number().int().positive(),
      event: z.string().min(1),
      body: z.string(),
    }),
  ),
});
export type LiveFeedBatch = z.infer<typeof LiveFeedBatchSchema>;
