import {
  MAX_CUSTOM_FIELDS,
  UPDATABLE_CONTACT_FIELDS,
  type CustomFieldsInput,
  type InternalUpdateContactRequest,
  type UpdateContactRequest,
} from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { StoredContact } from '../data-access/contact-store';

/** What a write changes; `null` from a planner means the request changes nothing. */
export interface ContactChangesPlan {
  set: Record<string, unknown>;
  unset: string[];
  addGroupIds: number[];
}

type Existing = Pick<
  StoredContact,
  | 'name'
  | 'phone'
  | 'email'
  | 'language'
  | 'subscription'
  | 'group_ids'
  | 'custom'
  | 'ai_bot_enabled'
>;

const emptyPlan = (): ContactChangesPlan => ({ set: {}, unset: [], addGroupIds: [] });
const isEmpty = (plan: ContactChangesPlan) =>
  Object.keys(plan.set).length === 0 && plan.unset.length === 0 && plan.addGroupIds.length === 0;

function setIfChanged<K extends keyof Existing>(
  plan: ContactChangesPlan,
  existing: Existing,
  field: K,
  value: Existing[K] | undefined,
): void {
  if (value !== undefined && value !== (existing[field] ?? null)) plan.set[field] = value;
}

/** Each of `fields` that the request gives, where it differs from the stored value. */
function setChanged<K extends keyof Existing>(
  plan: ContactChangesPlan,
  existing: Existing,
  request: { [P in K]?: Existing[P] | undefined },
  fields: readonly K[],
): void {
  for (const field of fields) setIfChanged(plan, existing, field, request[field]);
}

/** New custom fields for a contact that has none: `null` values are simply left out. */
export function newCustomFields(custom: CustomFieldsInput | undefined): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(custom ?? {})) if (value !== null) fields[key] = value;
  return fields;
}

/** Merges custom fields into `existing`: given keys are set, `null` removes a key. */
function planCustomFields(
  plan: ContactChangesPlan,
  existing: Record<string, string>,
  custom: CustomFieldsInput,
): void {
  const merged = new Map(Object.entries(existing));
  for (const [key, value] of Object.entries(custom)) {
    if (value === null) {
      if (merged.delete(key)) plan.unset.push(`custom.${key}`);
    } else if (merged.get(key) !== value) {
      merged.set(key, value);
      plan.set[`custom.${key}`] = value;
    }
  }
  if (merged.size > MAX_CUSTOM_FIELDS) {
    throw new AppError(
      'validation_failed',
      `custom: a contact has at most ${MAX_CUSTOM_FIELDS} custom fields (this would make ${merged.size})`,
    );
  }
}

/** Custom fields merged into the contact's, and the groups it is not in yet added. */
function planCustomAndGroups(
  plan: ContactChangesPlan,
  existing: Existing,
  custom: CustomFieldsInput | undefined,
  groupIds: readonly number[],
): void {
  if (custom) planCustomFields(plan, existing.custom ?? {}, custom);
  const current = new Set(existing.group_ids);
  plan.addGroupIds = [...new Set(groupIds)].filter((id) => !current.has(id));
}

/**
 * `makeContact` for a phone that already has a contact: the name is replaced, the email replaced
 * when given, custom fields merged, and the groups added to those it is already in.
 */
export function planMakeContactChanges(
  existing: Existing,
  request: { name: string; email?: string | null; custom?: CustomFieldsInput },
  groupIds: readonly number[],
): ContactChangesPlan | null {
  const plan = emptyPlan();
  setIfChanged(plan, existing, 'name', request.name);
  setIfChanged(plan, existing, 'email', request.email);
  planCustomAndGroups(plan, existing, request.custom, groupIds);
  return isEmpty(plan) ? null : plan;
}

/** `updateContact`: only name, phone, email, language and subscription are writable. */
export function planUpdateContactChanges(
  existing: Existing,
  request: Omit<UpdateContactRequest, 'id'>,
): ContactChangesPlan | null {
  const plan = emptyPlan();
  setChanged(plan, existing, request, UPDATABLE_CONTACT_FIELDS);
  return isEmpty(plan) ? null : plan;
}

/** The internal update (a flow's steps): `updateContact`'s fields, custom merged, groups added. */
export function planInternalContactChanges(
  existing: Existing,
  request: Omit<InternalUpdateContactRequest, 'company_id' | 'id' | 'groups'>,
  groupIds: readonly number[],
): ContactChangesPlan | null {
  const plan = emptyPlan();
  setChanged(plan, existing, request, ['name', 'email', 'language', 'subscription']);
  planCustomAndGroups(plan, existing, request.custom, groupIds);
  return isEmpty(plan) ? null : plan;
}

export function planAIBotChange(existing: Existing, enabled: boolean): ContactChangesPlan | null {
  const plan = emptyPlan();
  setIfChanged(plan, existing, 'ai_bot_enabled', enabled);
  return isEmpty(plan) ? null : plan;
}
