/**
 * What a send is made of, shared by every step of sending: the content, the recipient and the
 * request as the entry points hand it to the sender.
 */
import type { ContactCard, ListMenu, Location, OrgContext } from '@switchboard/contracts';
import type { MediaUpload } from '../../outbound/cloud-api';
import type { ContactRef } from '../../outbound/contacts-client';

export type MediaKind = 'image' | 'document' | 'video' | 'audio' | 'sticker';

/** A message of ours a send refers to; `wamid` is filled in once it is looked up. */
export interface MessageReference {
  message_id: number;
  wamid?: string;
}

export interface ReplyButton {
  id: string;
  title: string;
}

export type OutboundContent = (
  | { kind: 'text'; body: string; previewUrl?: boolean }
  | {
      kind: 'buttons';
      body: string;
      buttons: ReplyButton[];
      header?: { type: 'text'; text: string } | { type: 'image'; link: string };
      footer?: string;
    }
  | {
      kind: 'media';
      media: MediaKind;
      link?: string;
      mediaId?: string;
      caption?: string;
      filename?: string;
    }
  | {
      kind: 'template';
      name: string;
      language: string;
      components: unknown[];
    }
  | {
      kind: 'list';
      body: string;
      list: ListMenu;
      header?: string;
      footer?: string;
    }
  | { kind: 'location'; location: Location }
  | { kind: 'contacts'; cards: ContactCard[] }
  | { kind: 'reaction'; to: MessageReference; emoji: string }
) & {
  /** Sent as a reply to this message (the provider's `context`). */
  replyTo?: MessageReference;
};

/** A phone to resolve, a contact to look up, or a contact the producer already resolved. */
export type Recipient = { phone: string } | { contact_id: number } | { contact: ContactRef };

/** Content to send, or a file to upload to the provider first and the content that refers to it. */
export type SendBody =
  | { content: OutboundContent }
  | { upload: MediaUpload; contentFor: (mediaId: string) => OutboundContent };

export type SendRequest = SendBody & {
  organization: OrgContext;
  recipient: Recipient;
  idempotency?: { scope: 'api' | 'command'; key: string; fingerprint: string };
  campaign_id?: number;
  /** The organization's number to send from (its phone_number_id); the first number when absent. */
  from_phone_number_id?: string;
  /** The signed-in user (agent) sending from the console. */
  sent_by_agent_id?: number;
  /** The producer already holds this message's quota place, in this month. */
  reservedMonth?: string;
  /** The producer holds this message's place under this hold name (taken over, else reserved). */
  producerHold?: { name: string; month: string };
  /**
   * False for a broker command that has attempts left: a retryable provider failure then gives
   * the send back (SendDeferred) instead of recording it as failed.
   */
  mayFail: boolean;
};

/** The content a send asks for, before any upload (the media id is a placeholder then). */
export const requestedContent = (request: SendBody): OutboundContent =>
  'content' in request ? request.content : request.contentFor('0');
