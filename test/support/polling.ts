import { ConversationUpdatedEventSchema, type BrokerEvent } from '@switchboard/contracts';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `probe` returns a value (not undefined), or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** The events about one message, by name. */
export function eventsOf(events: BrokerEvent[], event: string, messageId: number): BrokerEvent[] {
  return events.filter(
    (item) =>
      item.event === event && (item.data as { message_id?: number }).message_id === messageId,
  );
}

let phoneSeq = Math.floor(Math.random() * 1_000_000);
/** A valid phone number that no other call of this test run uses. */
export const uniquePhone = () => `39348${String(phoneSeq++).padStart(7, '0')}`;

/**
 * Waits in `consoleEvents` (every console event a test has received, in order) for a contact's
 * `conversation_updated` whose data has every value of `data`.
 */
export function conversationUpdated(
  consoleEvents: readonly unknown[],
  contact_id: number,
  data: Record<string, unknown>,
) {
  return waitFor(
    () =>
      consoleEvents
        .map((event) => ConversationUpdatedEventSchema.parse(event))
        .find(
          (event) =>
            event.data.contact_id === contact_id &&
            Object.entries(data).every(([key, value]) => (event.data as never)[key] === value),
        ),
    10_000,
    `conversation_updated ${JSON.stringify(data)}`,
  );
}
