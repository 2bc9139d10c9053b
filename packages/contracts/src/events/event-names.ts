import { z } from 'zod';

/** The published event catalog, in the spec's order. */
export const EVENT_NAMES = [
  'message_received',
  'message_sent',
  'message_failed',
  'message_status_updated',
  'campaign_started',
  'campaign_completed',
  'account_status_updated',
  'phone_number_name_updated',
  'contact_created',
  'contact_updated',
  'template_approved',
  'template_rejected',
] as const;

/** Selectable in a subscription, but not emitted until emitting is enabled (the published event catalog). */
export const RESERVED_EVENT_NAMES = [
  'contact_created',
  'contact_updated',
  'template_approved',
  'template_rejected',
] as const;

export const EventNameSchema = z.enum(EVENT_NAMES);
export type EventName = z.infer<typeof EventNameSchema>;
export type ReservedEventName = (typeof RESERVED_EVENT_NAMES)[number];

export function isReservedEventName(name: string): name is ReservedEventName {
  return (RESERVED_EVENT_NAMES as readonly string[]).includes(name);
}
