import {
  limitFor,
  quotaExceededMessage,
  type Contact,
  type MakeContactRequest,
  type OrgContext,
} from '@switchboard/contracts';
import { AppError, isDuplicateKeyError } from '@switchboard/service-kit';
import type { StoredContact } from '../data-access/contact-store';
import { presentContact, type ContactsDeps } from './dependencies';
import { resolveGroupRefs } from './manage-groups';
import { newCustomFields, planMakeContactChanges } from './plan-contact-changes';
import { applyContactChanges, insertContact, type NewContact } from './save-contact';

export interface SavedContact {
  contact: Contact;
  created: boolean;
}

const ATTEMPTS = 3;

/**
 * Stores a new contact, holding a quota place for it first (`limit` null: never refused, the place
 * is still counted). The place is given back when nothing is stored; `duplicate` means another
 * request stored this phone first.
 */
async function createWithinQuota(
  deps: ContactsDeps,
  company_id: number,
  limit: number | null,
  refused: () => AppError,
  build: () => Promise<NewContact>,
  now: Date,
): Promise<StoredContact | 'duplicate'> {
  const reserved = await deps.quotas.reserve(company_id, limit, () =>
    deps.contacts.count({ company_id }),
  );
  if (!reserved) throw refused();
  try {
    return await insertContact(deps, await build(), now);
  } catch (error) {
    await deps.quotas.release(company_id);
    if (isDuplicateKeyError(error)) return 'duplicate';
    throw error;
  }
}

const planNameOnly = (name: string) => ({ set: { name }, unset: [], addGroupIds: [] });

const changedConcurrently = (phone: string) =>
  new AppError(
    'conflict',
    `phone: the contact with phone ${phone} changed concurrently; try again`,
  );

/** The API's `makeContact`: creates the contact, or updates the one that already has the phone. */
export async function makeContact(
  deps: ContactsDeps,
  organization: OrgContext,
  request: MakeContactRequest,
  now = new Date(),
): Promise<SavedContact> {
  const { company_id, plan, plan_started_at } = organization;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const existing = await deps.contacts.findByPhone(company_id, request.phone);
    if (existing) {
      const groupIds = request.groups
        ? await resolveGroupRefs(deps, company_id, request.groups, now)
        : [];
      const changes = planMakeContactChanges(existing, request, groupIds);
      const updated = await applyContactChanges(deps, existing, changes, now);
      return { contact: await presentContact(deps, updated), created: false };
    }
    const created = await createWithinQuota(
      deps,
      company_id,
      limitFor(plan, 'contacts', plan_started_at, now),
      () =>
        new AppError(
          'quota_exceeded',
          quotaExceededMessage(plan, 'contacts', plan_started_at, now),
        ),
      // Groups are resolved (unknown names created) only once a quota place is held.
      async () => ({
        company_id,
        name: request.name,
        phone: request.phone,
        email: request.email ?? null,
        custom: newCustomFields(request.custom),
        group_ids: request.groups
          ? await resolveGroupRefs(deps, company_id, request.groups, now)
          : [],
      }),
      now,
    );
    if (created !== 'duplicate') {
      return { contact: await presentContact(deps, created), created: true };
    }
  }
  throw changedConcurrently(request.phone);
}

/**
 * Internal: the contact with this phone, created when new. Never refused by the quota: a customer
 * who writes to the business is always stored (ARCHITECTURE §5). With `quotaOf` (a send to a new
 * number) the organization's contact quota applies as in `makeContact`.
 */
export async function resolveContact(
  deps: ContactsDeps,
  request: { company_id: number; phone: string; name?: string | undefined },
  now = new Date(),
  quotaOf?: OrgContext,
): Promise<SavedContact> {
  const { company_id, phone } = request;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const existing = await deps.contacts.findByPhone(company_id, phone);
    if (existing) {
      // A contact first stored under its phone takes the name the network reports later.
      const named =
        request.name && existing.name === existing.phone
          ? await applyContactChanges(deps, existing, planNameOnly(request.name), now)
          : existing;
      return { contact: await presentContact(deps, named), created: false };
    }
    const created = await createWithinQuota(
      deps,
      company_id,
      quotaOf ? limitFor(quotaOf.plan, 'contacts', quotaOf.plan_started_at, now) : null,
      () =>
        quotaOf
          ? new AppError(
              'quota_exceeded',
              quotaExceededMessage(quotaOf.plan, 'contacts', quotaOf.plan_started_at, now),
            )
          : new AppError('internal_error', 'an unlimited reservation was refused'),
      async () => ({ company_id, phone, name: request.name ?? phone }),
      now,
    );
    if (created !== 'duplicate') {
      return { contact: await presentContact(deps, created), created: true };
    }
  }
  throw changedConcurrently(phone);
}
