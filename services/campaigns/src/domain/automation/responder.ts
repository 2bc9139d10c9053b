import type { Contact, OrgContext, SendContentInput } from '@switchboard/contracts';

/**
 * One inbound message as automation sees it (from `message_received`, ARCHITECTURE §9), with
 * what every responder needs already looked up once: the organization's plan and the contact.
 */
export interface InboundTurn {
  organization: OrgContext;
  contact: Contact;
  message: {
    message_id: number;
    message_wamid: string;
    /** The provider's message type (`text`, `interactive`, `button`, `image`, …). */
    type: string;
    /** `message_received`'s `message`: the text, or the title of a chosen button or list row. */
    text: string;
    /** The id of a chosen button or list row, when the message is such a reply. */
    reply_id?: string;
  };
  /** The contact's first message ever to the organization (what a welcome reply answers). */
  first_message: boolean;
  received_at: Date;
}

/** What one responder decided to send, and who it was, for the log and usage counters. */
export interface AutomatedAnswer {
  /** For example `reply:12`, `flow:3`, `campaign:7`, `ai_bot`. */
  source: string;
  content: SendContentInput;
  /**
   * A message sent right after this one in the same turn (an automated reply's `next_reply_id`);
   * one level only: a `next` of a `next` is not sent.
   */
  next?: AutomatedAnswer;
}

/**
 * One step of the answer order. Resolves `null` when it has nothing to say to
 * this turn, so the next step is asked; the first answer is the only one sent.
 */
export type Responder = (turn: InboundTurn) => Promise<AutomatedAnswer | null>;
