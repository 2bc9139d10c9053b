import type { Subscription } from '@switchboard/contracts';
import { normalizeForMatching } from './match-text';
import type { AutomatedAnswer, InboundTurn, Responder } from './responder';

/** The words that unsubscribe and resubscribe a contact, and what each is answered. */
export interface OptOutSettings {
  stopWords: readonly string[];
  startWords: readonly string[];
  stopConfirmation: string;
  startConfirmation: string;
}

/** A comma-separated list of words as the configuration gives it, normalized for matching. */
export const keywordList = (value: string): string[] =>
  [...new Set(value.split(',').map(normalizeForMatching))].filter((word) => word !== '');

/**
 * Whether a message is an opt-out or opt-in word: the whole message, case-, accent- and
 * punctuation-insensitive ("Stop!", "arrêt", "BAJA"), so that a sentence merely containing
 * "stop" never unsubscribes anyone. A template's quick-reply button counts by its text or payload.
 */
export function optOutIntentOf(
  turn: Pick<InboundTurn, 'message'>,
  settings: Pick<OptOutSettings, 'stopWords' | 'startWords'>,
): Subscription | null {
  const { type, text, reply_id } = turn.message;
  if (type !== 'text' && type !== 'button' && type !== 'interactive') return null;
  const said = [text, reply_id ?? ''].map(normalizeForMatching).filter((word) => word !== '');
  if (said.some((word) => settings.stopWords.includes(word))) return 'unsubscribed';
  if (said.some((word) => settings.startWords.includes(word))) return 'subscribed';
  return null;
}

/**
 * Answers before every other step (and even when bots are off for the contact: an opt-out is the
 * contact's right, not a bot's turn): an opt-out word sets the contact unsubscribed and confirms
 * it, an opt-in word subscribes the contact again and confirms that. Contacts owns the contact, so
 * the change is made there (a redelivered turn makes the same change again).
 */
export function createOptOutResponder(deps: {
  settings: OptOutSettings;
  setSubscription(
    company_id: number,
    contact_id: number,
    subscription: Subscription,
  ): Promise<unknown>;
}): Responder {
  return async (turn): Promise<AutomatedAnswer | null> => {
    const wanted = optOutIntentOf(turn, deps.settings);
    if (!wanted) return null;
    // Set every time, not only when the contact looks different: the contact at hand may be a
    // cached copy from before a word sent a moment ago.
    await deps.setSubscription(turn.organization.company_id, turn.contact.id, wanted);
    const body =
      wanted === 'unsubscribed' ? deps.settings.stopConfirmation : deps.settings.startConfirmation;
    return {
      source: wanted === 'unsubscribed' ? 'opt_out' : 'opt_in',
      content: { type: 'text', message: body },
    };
  };
}
