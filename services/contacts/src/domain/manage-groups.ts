import {
  DEFAULT_PER_PAGE,
  type Contact,
  type Group,
  type GroupRef,
  type PageMeta,
  type PagingInput,
  pageOrWholeList,
} from '@switchboard/contracts';
import { AppError, isDuplicateKeyError } from '@switchboard/service-kit';
import { groupNameKey, type StoredGroup } from '../data-access/group-store';
import { groupNamesOf, toContactView, toGroupView } from './contact-view';
import type { ContactsDeps } from './dependencies';
import { groupNotFound } from './not-found';

const MEMBER_BATCH = 1000;

const nameTaken = (name: string) =>
  new AppError('conflict', `name: a group named "${name}" already exists in this organization`);

/** Every group of the organization, by id; with members, each group lists its contacts by id. */
export async function listGroups(
  deps: ContactsDeps,
  company_id: number,
  withMembers: boolean,
  paging: PagingInput = {},
): Promise<{ groups: Group[]; meta: PageMeta }> {
  // Groups are an organization's labels, few enough to read whole and cut the page in code.
  const all = await deps.groups.findAll(company_id);
  const { items: groups, meta } = pageOrWholeList(all, paging, DEFAULT_PER_PAGE);
  if (!withMembers || groups.length === 0) {
    return { groups: groups.map((group) => toGroupView(group)), meta };
  }

  const names = groupNamesOf(all);
  const members = new Map<number, Contact[]>(groups.map((group) => [group.id, []]));
  const filter = { company_id, group_ids: groups.map((group) => group.id) };
  for await (const batch of deps.contacts.batches(filter, MEMBER_BATCH)) {
    for (const stored of batch) {
      const contact = toContactView(stored, names);
      for (const { id } of contact.groups) members.get(id)?.push(contact);
    }
  }
  return { groups: groups.map((group) => toGroupView(group, members.get(group.id))), meta };
}

/** Creates a group; names are unique in an organization whatever their case. */
async function insertGroup(deps: ContactsDeps, company_id: number, name: string, now: Date) {
  const group: StoredGroup = {
    id: await deps.nextGroupId(),
    company_id,
    name,
    name_key: groupNameKey(name),
    created_at: now,
    updated_at: now,
  };
  await deps.groups.insert(group);
  return group;
}

export async function addGroup(
  deps: ContactsDeps,
  company_id: number,
  name: string,
  now = new Date(),
): Promise<Group> {
  try {
    return toGroupView(await insertGroup(deps, company_id, name, now));
  } catch (error) {
    if (isDuplicateKeyError(error)) throw nameTaken(name);
    throw error;
  }
}

export async function renameGroup(
  deps: ContactsDeps,
  company_id: number,
  id: number,
  name: string,
  now = new Date(),
): Promise<Group> {
  let renamed: StoredGroup | null;
  try {
    renamed = await deps.groups.rename(company_id, id, name, now);
  } catch (error) {
    if (isDuplicateKeyError(error)) throw nameTaken(name);
    throw error;
  }
  if (!renamed) throw groupNotFound([id]);
  return toGroupView(renamed);
}

/** The group goes; its contacts stay, without that membership. */
export async function deleteGroup(
  deps: ContactsDeps,
  company_id: number,
  id: number,
): Promise<Group> {
  const deleted = await deps.groups.delete(company_id, id);
  if (!deleted) throw groupNotFound([id]);
  // Memberships of a missing group are never shown, so a crash before this line hides them anyway.
  await deps.contacts.removeGroup(company_id, id);
  return toGroupView(deleted);
}

/**
 * The ids of the groups `refs` name. Every id must exist in the organization (404 otherwise,
 * before anything is created); unknown names create their group.
 */
export async function resolveGroupRefs(
  deps: ContactsDeps,
  company_id: number,
  refs: readonly GroupRef[],
  now: Date,
): Promise<number[]> {
  const ids = refs.flatMap((ref) => ('id' in ref ? [ref.id] : []));
  const names = refs.flatMap((ref) => ('name' in ref ? [ref.name] : []));

  const found = ids.length ? await deps.groups.findByIds(company_id, ids) : [];
  const foundIds = new Set(found.map((group) => group.id));
  const unknown = ids.filter((id) => !foundIds.has(id));
  if (unknown.length > 0) throw groupNotFound(unknown);

  const byKey = new Map<string, number>();
  const keys = names.map(groupNameKey);
  if (keys.length) {
    for (const group of await deps.groups.findByNameKeys(company_id, keys)) {
      byKey.set(group.name_key, group.id);
    }
  }
  for (const name of names) {
    const key = groupNameKey(name);
    if (byKey.has(key)) continue;
    try {
      byKey.set(key, (await insertGroup(deps, company_id, name, now)).id);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      // Created by a concurrent request a moment ago: use that one.
      const [existing] = await deps.groups.findByNameKeys(company_id, [key]);
      if (!existing) throw error;
      byKey.set(key, existing.id);
    }
  }
  return [...new Set([...ids, ...keys.map((key) => byKey.get(key)!)])];
}
