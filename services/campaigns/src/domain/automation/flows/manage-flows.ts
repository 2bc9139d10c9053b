import type {
  AddFlowRequest,
  FlowView,
  GetFlowsQuery,
  PageMeta,
  UpdateFlowRequest,
} from '@switchboard/contracts';
import {
  DEFAULT_FLOWS_PER_PAGE,
  flowGraphProblems,
  pageMeta,
  pageRequest,
} from '@switchboard/contracts';
import { AppError, type Logger } from '@switchboard/service-kit';
import type {
  FlowChanges,
  FlowStore,
  StoredFlow,
} from '../../../data-access/automation/flow-store';
import { normalizeForMatching } from '../match-text';

export interface FlowsDeps {
  flows: FlowStore;
  nextFlowId(): Promise<number>;
  logger: Logger;
}

const iso = (date: Date) => new Date(date).toISOString();

export function presentFlow(flow: StoredFlow): FlowView {
  return {
    id: flow.id,
    name: flow.name,
    triggers: flow.triggers,
    start_step: flow.start_step,
    steps: flow.steps,
    active: flow.active,
    created_at: iso(flow.created_at),
    updated_at: iso(flow.updated_at),
  };
}

const flowNotFound = (id: number) => new AppError('not_found', `id: no flow ${id}`);

/** The triggers' keys (what inbound text is compared with); each must keep a letter or symbol. */
function triggerKeys(triggers: string[]): string[] {
  const keys = triggers.map((trigger) => {
    const key = normalizeForMatching(trigger);
    if (key === '') {
      throw new AppError(
        'validation_failed',
        `triggers: "${trigger}" has nothing but punctuation and spaces`,
      );
    }
    return key;
  });
  return [...new Set(keys)];
}

/** An active flow's triggers must not start another active flow (which one would answer?). */
async function refuseTakenTriggers(
  deps: FlowsDeps,
  company_id: number,
  keys: string[],
  self?: number,
): Promise<void> {
  const holders = await deps.flows.activeWithTriggers(company_id, keys);
  const holder = holders.find((flow) => flow.id !== self);
  if (!holder) return;
  const taken = holder.triggers.filter((trigger) => keys.includes(normalizeForMatching(trigger)));
  throw new AppError(
    'conflict',
    `triggers: ${taken.map((t) => `"${t}"`).join(', ')} already start${taken.length === 1 ? 's' : ''} flow ${holder.id}`,
  );
}

export async function findFlow(
  deps: FlowsDeps,
  company_id: number,
  id: number,
): Promise<StoredFlow> {
  const flow = await deps.flows.find(company_id, id);
  if (!flow) throw flowNotFound(id);
  return flow;
}

export async function listFlows(
  deps: FlowsDeps,
  company_id: number,
  query: GetFlowsQuery,
): Promise<{ flows: StoredFlow[]; meta: PageMeta }> {
  const request = pageRequest(query, DEFAULT_FLOWS_PER_PAGE);
  const { flows, total } = await deps.flows.page(company_id, request.page, request.per_page);
  return { flows, meta: pageMeta(total, request) };
}

export async function addFlow(
  deps: FlowsDeps,
  company_id: number,
  request: AddFlowRequest,
  now = new Date(),
): Promise<StoredFlow> {
  const keys = triggerKeys(request.triggers);
  if (request.active) await refuseTakenTriggers(deps, company_id, keys);
  const id = await deps.nextFlowId();
  const flow: StoredFlow = {
    _id: String(id),
    id,
    company_id,
    name: request.name,
    triggers: request.triggers,
    trigger_keys: keys,
    start_step: request.start_step ?? request.steps[0]!.id,
    steps: request.steps,
    active: request.active,
    created_at: now,
    updated_at: now,
  };
  await deps.flows.insert(flow);
  return flow;
}

/** Only the fields given change; a new graph is checked whole (with the stored start step). */
export async function updateFlow(
  deps: FlowsDeps,
  company_id: number,
  { id, ...request }: UpdateFlowRequest,
  now = new Date(),
): Promise<StoredFlow> {
  const existing = await findFlow(deps, company_id, id);
  const changes: FlowChanges = { updated_at: now };
  if (request.name !== undefined) changes.name = request.name;
  if (request.triggers !== undefined) {
    changes.triggers = request.triggers;
    changes.trigger_keys = triggerKeys(request.triggers);
  }
  if (request.steps !== undefined) {
    changes.steps = request.steps;
    changes.start_step = request.start_step ?? request.steps[0]!.id;
  } else if (request.start_step !== undefined) {
    const [problem] = flowGraphProblems(existing.steps, request.start_step);
    if (problem) {
      throw new AppError('validation_failed', `${problem.path.join('.')}: ${problem.message}`);
    }
    changes.start_step = request.start_step;
  }
  if (request.active !== undefined) changes.active = request.active;
  if (changes.active ?? existing.active) {
    await refuseTakenTriggers(deps, company_id, changes.trigger_keys ?? existing.trigger_keys, id);
  }
  const updated = await deps.flows.update(company_id, id, changes);
  if (!updated) throw flowNotFound(id);
  return updated;
}

/** Sessions in the flow end when their contact next writes (the flow is no longer found). */
export async function deleteFlow(deps: FlowsDeps, company_id: number, id: number): Promise<void> {
  if (!(await deps.flows.delete(company_id, id))) throw flowNotFound(id);
}
