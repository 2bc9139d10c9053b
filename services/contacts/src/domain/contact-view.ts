import type { Contact, Group } from '@switchboard/contracts';
import type { StoredContact } from '../data-access/contact-store';
import type { StoredGroup } from '../data-access/group-store';

export type GroupNames = ReadonlyMap<number, string>;

export const groupNamesOf = (groups: readonly StoredGroup[]): GroupNames =>
  new Map(groups.map((group) => [group.id, group.name]));

/** A contact as the API shows it. Memberships of groups that no longer exist are not shown. */
export function toContactView(contact: StoredContact, groupNames: GroupNames): Contact {
  const groups = [...new Set(contact.group_ids)]
    .filter((id) => groupNames.has(id))
    .sort((a, b) => a - b)
    .map((id) => ({ id, name: groupNames.get(id)! }));
  return {
    id: contact.id,
    name: contact.name,
    phone: contact.phone,
    email: contact.email ?? null,
    language: contact.language ?? null,
    subscription: contact.subscription,
    groups,
    custom: { ...contact.custom },
    ai_bot_enabled: contact.ai_bot_enabled === true,
    created_at: contact.created_at.toISOString(),
    updated_at: contact.updated_at.toISOString(),
  };
}

export function toGroupView(group: StoredGroup, members?: Contact[]): Group {
  return {
    id: group.id,
    name: group.name,
    created_at: group.created_at.toISOString(),
    updated_at: group.updated_at.toISOString(),
    ...(members ? { contacts: members } : {}),
  };
}
