/** The processes of ARCHITECTURE §1 that own data or routes. */
export const SERVICE_NAMES = [
  'gateway',
  'messaging',
  'contacts',
  'campaigns',
  'webhooks',
  'inbound',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
