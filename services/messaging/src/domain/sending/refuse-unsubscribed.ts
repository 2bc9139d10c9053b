import { AppError } from '@switchboard/service-kit';
import type { MessageStore } from '../../data-access/message-store';
import type { TemplateStore } from '../../data-access/template-store';
import type { ContactRef } from '../../outbound/contacts-client';
import type { OutboundContent } from './send-types';

/** A business may answer a contact for 24 hours after the contact's last message. */
export const REPLY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * A contact who opted out (STOP) gets no message the business starts: a direct send is refused
 * unless it answers the contact within 24 hours of the contact's last message, and a marketing
 * template is refused always. Checked before anything is stored or sent; a subscribed contact
 * costs no read.
 */
export async function refuseUnsubscribed(
  deps: {
    messages: Pick<MessageStore, 'lastInboundAt'>;
    templates: Pick<TemplateStore, 'find'>;
  },
  company_id: number,
  contact: ContactRef,
  content: OutboundContent,
  now: Date,
): Promise<void> {
  if (contact.subscription !== 'unsubscribed') return;
  if (content.kind === 'template') {
    const template = await deps.templates.find(company_id, content.name, content.language);
    if (template?.category.toUpperCase() === 'MARKETING') {
      throw new AppError(
        'contact_unsubscribed',
        `phone: contact ${contact.id} has unsubscribed; marketing templates are not sent to them`,
      );
    }
  }
  const last = await deps.messages.lastInboundAt(company_id, contact.id);
  if (last && now.getTime() - last.getTime() < REPLY_WINDOW_MS) return;
  throw new AppError(
    'contact_unsubscribed',
    `phone: contact ${contact.id} has unsubscribed; only a reply within 24 hours of their last message may be sent`,
  );
}
