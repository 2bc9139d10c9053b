/** A message the simulator has seen: one a user sent (`inbound`) or one the business sent. */
export interface KnownMessage {
  direction: 'inbound' | 'outbound';
  phone_number_id: string;
  wa_id: string;
  type?: string;
}
