import {
  DEFAULT_REPLIES_PER_PAGE,
  pageMeta,
  pageRequest,
  type AddAutomatedReplyRequest,
  type AutomatedReply,
  type GetAutomatedRepliesQuery,
  type PageMeta,
  type UpdateAutomatedReplyRequest,
} from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type {
  ReplyChanges,
  ReplyStore,
  StoredReply,
} from '../../data-access/automation/reply-store';
import { normalizeForMatching } from './match-text';

export interface ReplyDeps {
  replies: ReplyStore;
  nextReplyId(): Promise<number>;
}

export function presentReply(reply: StoredReply): AutomatedReply {
  return {
    id: reply.id,
    name: reply.name,
    kind: reply.kind,
    triggers: reply.triggers,
    message: reply.message,
    header: reply.header,
    footer: reply.footer,
    buttons: reply.buttons,
    image: reply.image,
    next_reply_id: reply.next_reply_id,
    active: reply.active,
    used: reply.used,
    created_at: new Date(reply.created_at).toISOString(),
    updated_at: new Date(reply.updated_at).toISOString(),
  };
}

const replyNotFound = (id: number) => new AppError('not_found', `id: no automated reply ${id}`);

/** What a trigger is compared as; a trigger of punctuation alone could never match. */
function matchKeys(triggers: string[]): string[] {
  const keys = triggers.map(normalizeForMatching);
  const empty = triggers.find((_trigger, index) => keys[index] === '');
  if (empty !== undefined) {
    throw new AppError('validation_failed', `triggers: "${empty}" has no letters or digits`);
  }
  return [...new Set(keys)];
}

/** A chained reply must be another reply of the same organization. */
async function checkNext(deps: ReplyDeps, company_id: number, next: number | null, self?: number) {
  if (next === null) return;
  if (next === self)
    throw new AppError('validation_failed', 'next_reply_id: cannot be the reply itself');
  if (!(await deps.replies.find(company_id, next))) {
    throw new AppError('validation_failed', `next_reply_id: no automated reply ${next}`);
  }
}

export async function addReply(
  deps: ReplyDeps,
  company_id: number,
  request: AddAutomatedReplyRequest,
  now = new Date(),
): Promise<StoredReply> {
  const triggers = request.kind === 'welcome' ? [] : (request.triggers ?? []);
  const match_keys = matchKeys(triggers);
  await checkNext(deps, company_id, request.next_reply_id ?? null);
  const id = await deps.nextReplyId();
  const reply: StoredReply = {
    _id: String(id),
    id,
    company_id,
    name: request.name,
    kind: request.kind,
    triggers,
    match_keys,
    message: request.message,
    header: request.header ?? null,
    footer: request.footer ?? null,
    buttons: request.buttons ?? [],
    image: request.image ?? null,
    next_reply_id: request.next_reply_id ?? null,
    active: request.active,
    used: 0,
    created_at: now,
    updated_at: now,
  };
  await deps.replies.insert(reply);
  return reply;
}

export async function updateReply(
  deps: ReplyDeps,
  company_id: number,
  request: UpdateAutomatedReplyRequest,
): Promise<StoredReply> {
  const current = await deps.replies.find(company_id, request.id);
  if (!current) throw replyNotFound(request.id);
  const kind = request.kind ?? current.kind;
  const triggers = kind === 'welcome' ? [] : (request.triggers ?? current.triggers);
  if (kind !== 'welcome' && triggers.length === 0) {
    throw new AppError('validation_failed', `triggers: a ${kind} reply needs at least one`);
  }
  if (request.next_reply_id !== undefined) {
    await checkNext(deps, company_id, request.next_reply_id, request.id);
  }
  const changes: ReplyChanges = {
    kind,
    triggers,
    match_keys: matchKeys(triggers),
    ...(request.name !== undefined ? { name: request.name } : {}),
    ...(request.message !== undefined ? { message: request.message } : {}),
    ...(request.header !== undefined ? { header: request.header } : {}),
    ...(request.footer !== undefined ? { footer: request.footer } : {}),
    ...(request.buttons !== undefined ? { buttons: request.buttons ?? [] } : {}),
    ...(request.image !== undefined ? { image: request.image } : {}),
    ...(request.next_reply_id !== undefined ? { next_reply_id: request.next_reply_id } : {}),
    ...(request.active !== undefined ? { active: request.active } : {}),
  };
  const updated = await deps.replies.update(company_id, request.id, changes);
  if (!updated) throw replyNotFound(request.id);
  return updated;
}

export async function deleteReply(
  deps: ReplyDeps,
  company_id: number,
  id: number,
): Promise<StoredReply> {
  const reply = await deps.replies.find(company_id, id);
  if (!reply) throw replyNotFound(id);
  await deps.replies.delete(company_id, id);
  return reply;
}

export async function listReplies(
  deps: ReplyDeps,
  company_id: number,
  query: GetAutomatedRepliesQuery,
): Promise<{ replies: StoredReply[]; meta: PageMeta }> {
  const request = pageRequest(query, DEFAULT_REPLIES_PER_PAGE);
  const { replies, total } = await deps.replies.page(
    company_id,
    query.kind,
    request.skip,
    request.per_page,
  );
  return { replies, meta: pageMeta(total, request) };
}
