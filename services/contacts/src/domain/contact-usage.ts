import type { ContactsDeps } from './dependencies';

/** Contacts an organization holds, as its contact quota counts them. */
export function contactsHeld(deps: Pick<ContactsDeps, 'quotas'>, company_id: number) {
  return deps.quotas.used(company_id);
}
