import { AppError } from '@switchboard/service-kit';
import type { ContactRef, ContactsClient } from '../../outbound/contacts-client';
import type { SendRequest } from './send-types';

/**
 * The contact a send goes to: the one the producer resolved, the contact of a phone (created
 * within the organization's contact quota when new), or a contact named by id.
 */
export async function findRecipient(
  contacts: Pick<ContactsClient, 'resolve' | 'byIds'>,
  request: Pick<SendRequest, 'organization' | 'recipient'>,
): Promise<ContactRef> {
  if ('contact' in request.recipient) return request.recipient.contact;
  if ('phone' in request.recipient) {
    const { organization } = request;
    return contacts.resolve(organization.company_id, request.recipient.phone, {
      quotaOf: organization,
    });
  }
  const { contact_id } = request.recipient;
  const [contact] = await contacts.byIds(request.organization.company_id, [contact_id]);
  if (!contact) throw new AppError('not_found', `contact_id: no contact ${contact_id}`);
  return contact;
}
