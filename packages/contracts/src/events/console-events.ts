import { z } from 'zod';

/**
 * Events for the signed-in users of the console only, never for customer webhooks: they go
 * on an exchange of their own (`svc.console`), so the webhooks service, which takes every
 * event of `svc.events`, never sees them. Routed by their event name.
 */
export const CONSOLE_EXCHANGE = 'svc.console';

export const CONVERSATION_STATUSES = ['open', 'needs_human', 'closed'] as const;
export const ConversationStatusSchema = z.enum(CONVERSATION_STATUSES);
export type ConversationStatus = z.infer<typeof ConversationStatusSchema>;

const envelope = <E extends string, D extends z.ZodType>(event: E, data: D) =>
  z.strictObject({
    id: z.uuid(),
    event: z.literal(event),
    timestamp: z.iso.datetime({ offset: true }),
    company_id: z.number().int().positive(),
    data,
  });

/** A conversation's assignee, status or unread count changed. */
export const ConversationUpdatedEventSchema = envelope(
  'conversation_updated',
  z.strictObject({
    contact_id: z.number().int().positive(),
    /** The gateway's user id of the agent it is assigned to; null when nobody has it. */
    assigned_agent_id: z.number().int().positive().nullable(),
    status: ConversationStatusSchema,
    unread_count: z.number().int().nonnegative(),
  }),
);

/** A campaign's counts moved (throttled by its publisher to a few per second per campaign). */
export const CampaignProgressEventSchema = envelope(
  'campaign_progress',
  z.strictObject({
    campaign_id: z.number().int().positive(),
    status: z.string(),
    total: z.number().int().nonnegative(),
    sent: z.number().int().nonnegative(),
    delivered: z.number().int().nonnegative(),
    read: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
  }),
);

export type CampaignProgressEvent = z.infer<typeof CampaignProgressEventSchema>;

export const ConsoleEventSchema = z.discriminatedUnion('event', [
  ConversationUpdatedEventSchema,
  CampaignProgressEventSchema,
]);
export type ConsoleEvent = z.infer<typeof ConsoleEventSchema>;
export type ConsoleEventName = ConsoleEvent['event'];
