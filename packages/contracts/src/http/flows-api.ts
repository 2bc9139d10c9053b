import { z } from 'zod';
import { successResponse } from '../envelope';
import { CampaignMessageSchema, VariableSourceSchema } from './campaigns-api';
import { GroupNameSchema, PositiveIntegerSchema, BooleanInputSchema } from './contacts-api';
import { PageMetaSchema, pageQuery } from './paging';
import { defineOperation } from './operation';
import { listInput } from './list-input';

// Flows, beyond the spec's table: a conversation a trigger keyword starts and
// the contact's replies walk through, step by step (`getFlows`, `addFlow`, `updateFlow`,
// `deleteFlow`). The graph is checked when saved: a step that names a missing step is refused.

export const MAX_FLOW_STEPS = 50;
export const MAX_FLOW_TRIGGERS = 20;
export const MAX_FLOW_BRANCHES = 20;

export const FlowStepIdSchema = z
  .string({ error: 'must be a step id' })
  .trim()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be 1 to 64 letters, digits, _ or -' });

/** Trigger keywords, as an array or a comma-separated string. */
const TriggersSchema = listInput(
  z
    .array(z.string({ error: 'must be text' }).trim().min(1).max(100), {
      error: 'must be keywords, as an array or a comma-separated string',
    })
    .min(1, { error: 'must name at least one keyword' })
    .max(MAX_FLOW_TRIGGERS, { error: `must be at most ${MAX_FLOW_TRIGGERS} keywords` }),
  { dropEmpty: true },
);

/**
 * Where a reply goes. `button`: the chosen button's id (or its title typed out); `keywords`: the
 * reply equals one of them or holds it as whole words (case and accents ignored); `any`: anything.
 * Branches are tried in order.
 */
export const FlowBranchSchema = z
  .object({
    button: z.string().min(1).max(256).optional(),
    keywords: TriggersSchema.optional(),
    any: z.literal(true, { error: 'must be true' }).optional(),
    next: FlowStepIdSchema,
  })
  .refine(
    (branch) =>
      [branch.button, branch.keywords, branch.any].filter((when) => when !== undefined).length ===
      1,
    { message: 'must have exactly one of button, keywords or any' },
  );
export type FlowBranch = z.infer<typeof FlowBranchSchema>;

/** `{{1}}`… in a text or a template's body parameters; contact fields only (no API `data`). */
const FlowVariablesSchema = z
  .array(VariableSourceSchema)
  .max(20)
  .refine((sources) => sources.every((source) => !('data' in source)), {
    message: 'flows fill variables from the contact only ({value} or {field})',
  })
  .optional();

const step = { id: FlowStepIdSchema };
/** After an action step; absent, the flow ends there. */
const next = FlowStepIdSchema.optional();

export const FLOW_FIELDS =
  /^(name|email|language|subscription|custom\.[A-Za-z0-9_][A-Za-z0-9_ -]{0,63})$/;

export const FlowStepSchema = z.discriminatedUnion(
  'type',
  [
    /**
     * Sends a message (text with header, footer, up to 3 buttons or an image; or a template),
     * then waits for the reply: `branches` in order, then `next` for any other reply. With neither
     * the flow ends once it is sent. A reply that no branch takes is answered with the message again.
     */
    z.object({
      ...step,
      type: z.literal('message'),
      message: CampaignMessageSchema,
      variables: FlowVariablesSchema,
      branches: z.array(FlowBranchSchema).max(MAX_FLOW_BRANCHES).optional(),
      next,
    }),
    /**
     * Sets `name`, `email`, `language`, `subscription` (`subscribed` or `unsubscribed`) or
     * `custom.<key>`; `{{reply}}` is the reply's text, an empty value clears.
     */
    z.object({
      ...step,
      type: z.literal('set_field'),
      field: z.string().regex(FLOW_FIELDS, {
        error: 'must be name, email, language, subscription or custom.<key>',
      }),
      value: z.string().max(1000),
      next,
    }),
    /** Adds the contact to a group, by id (digits) or name (created when new). */
    z.object({
      ...step,
      type: z.literal('add_to_group'),
      group: z.union([PositiveIntegerSchema, GroupNameSchema], {
        error: 'must be a group id or name',
      }),
      next,
    }),
    /** Turns the contact's bots off so that a person answers; the flow ends (message optional). */
    z.object({
      ...step,
      type: z.literal('hand_over'),
      message: CampaignMessageSchema.optional(),
      variables: FlowVariablesSchema,
    }),
    /** Ends the flow (message optional). */
    z.object({
      ...step,
      type: z.literal('end'),
      message: CampaignMessageSchema.optional(),
      variables: FlowVariablesSchema,
    }),
  ],
  { error: 'type must be message, set_field, add_to_group, hand_over or end' },
);
export type FlowStep = z.infer<typeof FlowStepSchema>;

const targetsOf = (flowStep: FlowStep): string[] => {
  if (flowStep.type === 'hand_over' || flowStep.type === 'end') return [];
  const targets = flowStep.next ? [flowStep.next] : [];
  if (flowStep.type === 'message') targets.push(...(flowStep.branches ?? []).map((b) => b.next));
  return targets;
};

/**
 * What is wrong with a flow's graph, each naming its place: duplicate step ids, a start or a
 * branch target that is not a step, buttons without unique ids, a branch on a button the message
 * does not have, a loop of steps that never waits for a reply.
 */
export function flowGraphProblems(
  steps: readonly FlowStep[],
  startStep: string,
): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  const index = new Map<string, number>();
  steps.forEach((flowStep, i) => {
    if (index.has(flowStep.id)) {
      problems.push({ path: ['steps', i, 'id'], message: `step id ${flowStep.id} is used twice` });
    } else index.set(flowStep.id, i);
  });
  if (!index.has(startStep)) {
    problems.push({ path: ['start_step'], message: `${startStep} is not a step of this flow` });
  }
  steps.forEach((flowStep, i) => {
    const at = (message: string) =>
      problems.push({ path: ['steps', i], message: `step ${flowStep.id}: ${message}` });
    for (const target of targetsOf(flowStep)) {
      if (!index.has(target)) at(`goes to ${target}, which is not a step of this flow`);
    }
    if (flowStep.type !== 'message') return;
    const buttons = flowStep.message.type === 'text' ? (flowStep.message.buttons ?? []) : [];
    const ids = new Set(buttons.map((button) => button.id));
    if (ids.size !== buttons.length) at('button ids must be unique');
    for (const branch of flowStep.branches ?? []) {
      if (branch.button !== undefined && !ids.has(branch.button)) {
        at(`branches on button ${branch.button}, which its message does not have`);
      }
    }
  });
  // Steps that do not wait (actions) must not lead back to themselves without a message between.
  const visiting = new Set<string>();
  const done = new Set<string>();
  const loops = (id: string): boolean => {
    const i = index.get(id);
    const flowStep = i === undefined ? undefined : steps[i];
    if (!flowStep || flowStep.type === 'message' || done.has(id)) return false;
    if (visiting.has(id)) return true;
    visiting.add(id);
    const found = targetsOf(flowStep).some(loops);
    visiting.delete(id);
    done.add(id);
    return found;
  };
  steps.forEach((flowStep, i) => {
    if (loops(flowStep.id)) {
      problems.push({
        path: ['steps', i],
        message: `step ${flowStep.id}: leads back to itself without a message step between`,
      });
    }
  });
  return problems;
}

const StepsSchema = z
  .array(FlowStepSchema, { error: 'must be a list of steps' })
  .min(1, { error: 'must have at least one step' })
  .max(MAX_FLOW_STEPS, { error: `must have at most ${MAX_FLOW_STEPS} steps` });

function checkGraph(
  flow: { steps?: FlowStep[] | undefined; start_step?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  // Zod goes on to refinements after some issues: check only a list of well-formed steps.
  const wellFormed = (step: unknown) => typeof (step as FlowStep | undefined)?.id === 'string';
  if (!flow.steps?.length || !flow.steps.every(wellFormed)) return;
  for (const problem of flowGraphProblems(flow.steps, flow.start_step ?? flow.steps[0]!.id)) {
    ctx.addIssue({ code: 'custom', ...problem });
  }
}

export const AddFlowRequestSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    triggers: TriggersSchema,
    steps: StepsSchema,
    /** The first step; the first of `steps` when absent. */
    start_step: FlowStepIdSchema.optional(),
    active: BooleanInputSchema.default(true),
  })
  .superRefine(checkGraph);
export type AddFlowRequest = z.infer<typeof AddFlowRequestSchema>;
export type AddFlowRequestInput = z.input<typeof AddFlowRequestSchema>;

const UPDATABLE = ['name', 'triggers', 'steps', 'start_step', 'active'] as const;

/** Only the given fields change; `steps` without `start_step` starts at the first step. */
export const UpdateFlowRequestSchema = z
  .object({
    id: PositiveIntegerSchema,
    name: z.string().trim().min(1).max(200).optional(),
    triggers: TriggersSchema.optional(),
    steps: StepsSchema.optional(),
    start_step: FlowStepIdSchema.optional(),
    active: BooleanInputSchema.optional(),
  })
  .refine((body) => UPDATABLE.some((field) => body[field] !== undefined), {
    message: `at least one of ${UPDATABLE.join(', ')} is required`,
  })
  .superRefine(checkGraph);
export type UpdateFlowRequest = z.infer<typeof UpdateFlowRequestSchema>;

export const FlowIdRequestSchema = z.object({ id: PositiveIntegerSchema });

export const MAX_FLOWS_PER_PAGE = 100;
export const DEFAULT_FLOWS_PER_PAGE = 20;
export const GetFlowsQuerySchema = z.object({
  ...pageQuery({ max: MAX_FLOWS_PER_PAGE, defaultPerPage: DEFAULT_FLOWS_PER_PAGE }),
});
export type GetFlowsQuery = z.infer<typeof GetFlowsQuerySchema>;

export const FlowViewSchema = z.object({
  id: z.number().int().positive(),
  name: z.string(),
  triggers: z.array(z.string()),
  start_step: z.string(),
  steps: z.array(FlowStepSchema),
  active: z.boolean(),
  created_at: z.iso.datetime({ offset: true }),
  updated_at: z.iso.datetime({ offset: true }),
});
export type FlowView = z.infer<typeof FlowViewSchema>;

export const FlowResponseSchema = successResponse({ flow: FlowViewSchema });
export type FlowResponse = z.infer<typeof FlowResponseSchema>;
export const FlowsResponseSchema = successResponse({
  flows: z.array(FlowViewSchema),
  meta: PageMetaSchema,
});
export type FlowsResponse = z.infer<typeof FlowsResponseSchema>;

const FLOW_OPERATION = { auth: 'token', tags: ['flows'] } as const;
const UPDATE_FLOW = {
  summary: 'Change a flow (only the fields given)',
  description:
    'Contacts in the middle of the flow go on from the step they are at; if that step is gone ' +
    'their session ends.',
  request: { body: UpdateFlowRequestSchema },
  responses: { 200: FlowResponseSchema },
};
const DELETE_FLOW = {
  summary: 'Delete a flow; sessions in it end at their next message',
  request: { body: FlowIdRequestSchema },
  responses: { 200: successResponse({}) },
};

export const FLOW_OPERATIONS = [
  defineOperation({
    owner: 'campaigns',
    method: 'get',
    ...FLOW_OPERATION,
    path: '/api/svc/getFlows',
    operationId: 'getFlows',
    summary: 'Flows, a page at a time (oldest first)',
    request: { query: GetFlowsQuerySchema },
    responses: { 200: FlowsResponseSchema },
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'post',
    ...FLOW_OPERATION,
    path: '/api/svc/addFlow',
    operationId: 'addFlow',
    summary: 'Create a flow',
    description:
      'A message equal to a trigger (case, accents and surrounding punctuation ignored) starts ' +
      'the flow for that contact. A trigger already used by another flow answers 409; a step ' +
      'that goes to a missing step, duplicate button ids or more than 50 steps answer 422.',
    request: { body: AddFlowRequestSchema },
    responses: { 201: FlowResponseSchema },
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'put',
    ...FLOW_OPERATION,
    path: '/api/svc/updateFlow',
    operationId: 'updateFlow',
    ...UPDATE_FLOW,
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'post',
    ...FLOW_OPERATION,
    path: '/api/svc/updateFlow',
    operationId: 'updateFlowWithPost',
    ...UPDATE_FLOW,
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'delete',
    ...FLOW_OPERATION,
    path: '/api/svc/deleteFlow',
    operationId: 'deleteFlow',
    ...DELETE_FLOW,
  }),
  defineOperation({
    owner: 'campaigns',
    method: 'post',
    ...FLOW_OPERATION,
    path: '/api/svc/deleteFlow',
    operationId: 'deleteFlowWithPost',
    ...DELETE_FLOW,
  }),
] as const;
