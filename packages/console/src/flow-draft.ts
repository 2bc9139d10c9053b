import type {
  AddFlowRequestInput,
  CampaignMessage,
  FlowBranch,
  FlowStep,
  FlowView,
  TemplateView,
  VariableSource,
} from '@switchboard/contracts';
import { placeholderCount, templateBody } from './template-text.js';

// A flow as the console's editor holds it, and back into the API's own request: the form's
// strings (keywords and button titles separated by commas, variables in their string forms) and
// what the form does not show, kept from the stored step.

export type StepType = FlowStep['type'];
export type BranchWhen = 'button' | 'keywords' | 'any';

export interface DraftBranch {
  when: BranchWhen;
  /** The button id, or the keywords separated by commas. */
  value: string;
  next: string;
}

/** A step as the form holds it; `original` keeps what the form does not show (header, image…). */
export interface DraftStep {
  id: string;
  type: StepType;
  /** What a message step (or a hand-over's or end's message) sends. */
  sends: 'text' | 'template';
  text: string;
  /** The approved template chosen, as `name|language`. */
  template: string;
  /** `{{1}}`, `{{2}}`… of the text or the template's body, in the API's string forms. */
  variables: string[];
  /** Titles separated by commas; each keeps its id when its title is unchanged. */
  buttons: string;
  branches: DraftBranch[];
  next: string;
  field: string;
  value: string;
  group: string;
  original?: FlowStep;
}

export interface DraftFlow {
  name: string;
  triggers: string;
  startStep: string;
  steps: DraftStep[];
}

export const blankStep = (id: string, type: StepType = 'message'): DraftStep => ({
  id,
  type,
  sends: 'text',
  text: '',
  template: '',
  variables: [],
  buttons: '',
  branches: [],
  next: '',
  field: 'name',
  value: '',
  group: '',
});

const messageText = (message: CampaignMessage | undefined) =>
  message?.type === 'text' ? message.text : '';

export const templateKey = (template: { template_name: string; template_language: string }) =>
  `${template.template_name}|${template.template_language}`;

/** A stored variable in the form's string form: `contact.<field>` or the fixed text. */
const variableText = (source: VariableSource) =>
  'field' in source ? `contact.${source.field}` : 'value' in source ? source.value : '';

/** The message of a step that may have one, with its variables, into the draft. */
function draftMessage(draft: DraftStep, step: FlowStep): void {
  if (!('message' in step) || !step.message) return;
  draft.text = messageText(step.message);
  if (step.message.type === 'template') {
    draft.sends = 'template';
    draft.template = templateKey(step.message);
  }
  draft.variables = (step.variables ?? []).map(variableText);
}

function draftOfStep(step: FlowStep): DraftStep {
  const draft: DraftStep = { ...blankStep(step.id, step.type), original: step };
  draftMessage(draft, step);
  switch (step.type) {
    case 'message':
      draft.buttons =
        step.message.type === 'text'
          ? (step.message.buttons ?? []).map((button) => button.title).join(', ')
          : '';
      draft.branches = (step.branches ?? []).map((branch) =>
        branch.button !== undefined
          ? { when: 'button', value: branch.button, next: branch.next }
          : branch.keywords !== undefined
            ? { when: 'keywords', value: [branch.keywords].flat().join(', '), next: branch.next }
            : { when: 'any', value: '', next: branch.next },
      );
      draft.next = step.next ?? '';
      break;
    case 'set_field':
      draft.field = step.field;
      draft.value = step.value;
      draft.next = step.next ?? '';
      break;
    case 'add_to_group':
      draft.group = String(step.group);
      draft.next = step.next ?? '';
      break;
    case 'hand_over':
    case 'end':
      break;
  }
  return draft;
}

export function draftOfFlow(flow: FlowView): DraftFlow {
  return {
    name: flow.name,
    triggers: flow.triggers.join(', '),
    startStep: flow.start_step,
    steps: flow.steps.map(draftOfStep),
  };
}

const splitList = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** The step's buttons: a title kept from before keeps its id; a new one is its own id. */
export function buttonsOf(draft: DraftStep): { id: string; title: string }[] {
  const before =
    draft.original?.type === 'message' && draft.original.message.type === 'text'
      ? (draft.original.message.buttons ?? [])
      : [];
  return splitList(draft.buttons).map(
    (title) => before.find((button) => button.title === title) ?? { id: title, title },
  );
}

/** A text message with what the form shows, over what the step had that it does not show. */
function textMessage(draft: DraftStep, withButtons: boolean): CampaignMessage {
  const before = draft.original && 'message' in draft.original ? draft.original.message : undefined;
  const kept = before?.type === 'text' ? before : {};
  const buttons = withButtons ? buttonsOf(draft) : [];
  const { buttons: _dropped, ...rest } = kept as Partial<
    Extract<CampaignMessage, { type: 'text' }>
  >;
  return {
    ...rest,
    type: 'text',
    text: draft.text,
    ...(buttons.length > 0 ? { buttons } : {}),
  } as CampaignMessage;
}

/** The chosen template; its header and button values kept when it is the one the step had. */
function templateMessage(draft: DraftStep): CampaignMessage {
  const [name = '', language = ''] = draft.template.split('|');
  const before = draft.original && 'message' in draft.original ? draft.original.message : undefined;
  const kept = before?.type === 'template' && templateKey(before) === draft.template ? before : {};
  return { ...kept, type: 'template', template_name: name, template_language: language };
}

function branchOf(branch: DraftBranch): FlowBranch {
  if (branch.when === 'button') return { button: branch.value, next: branch.next };
  if (branch.when === 'keywords') return { keywords: splitList(branch.value), next: branch.next };
  return { any: true, next: branch.next };
}

/** What the step sends, with its variables; nothing for a hand-over or end left empty. */
function messageOf(
  draft: DraftStep,
  count: number,
): { message: CampaignMessage; variables?: string[] } | null {
  const variables =
    count > 0
      ? { variables: Array.from({ length: count }, (_, i) => draft.variables[i] ?? 'contact.name') }
      : {};
  if (draft.sends === 'template') {
    if (!draft.template && draft.type !== 'message') return null;
    return { message: templateMessage(draft), ...variables };
  }
  if (draft.text === '' && draft.type !== 'message') return null;
  return { message: textMessage(draft, draft.type === 'message'), ...variables };
}

/** How many `{{n}}` the step's text or chosen template's body holds. */
export function variableCount(draft: DraftStep, templates: TemplateView[]): number {
  if (draft.sends === 'text') return placeholderCount(draft.text);
  const template = templates.find((t) => templateKey(t) === draft.template);
  return placeholderCount(templateBody(template));
}

/** A step as the API takes it (variables in their string forms). */
type FlowStepInput = AddFlowRequestInput['steps'][number];

function stepOf(draft: DraftStep, templates: TemplateView[]): FlowStepInput {
  const next = draft.next ? { next: draft.next } : {};
  const sent = messageOf(draft, variableCount(draft, templates));
  switch (draft.type) {
    case 'message':
      return {
        id: draft.id,
        type: 'message',
        ...sent!,
        ...(draft.branches.length > 0 ? { branches: draft.branches.map(branchOf) } : {}),
        ...next,
      } as FlowStepInput;
    case 'set_field':
      return { id: draft.id, type: 'set_field', field: draft.field, value: draft.value, ...next };
    case 'add_to_group':
      return { id: draft.id, type: 'add_to_group', group: draft.group, ...next };
    case 'hand_over':
    case 'end':
      return { id: draft.id, type: draft.type, ...(sent ?? {}) } as FlowStepInput;
  }
}

export function requestOf(draft: DraftFlow, templates: TemplateView[]): AddFlowRequestInput {
  return {
    name: draft.name,
    triggers: draft.triggers,
    steps: draft.steps.map((step) => stepOf(step, templates)),
    ...(draft.startStep ? { start_step: draft.startStep } : {}),
  };
}

/**
 * The API's refusal split by where each problem is: `steps.<n>…` under that step, the rest
 * (name, triggers, start step, a trigger another flow uses) above the steps.
 */
export function problemsByPlace(message: string | null): {
  general: string[];
  byStep: Map<number, string[]>;
} {
  const general: string[] = [];
  const byStep = new Map<number, string[]>();
  if (!message) return { general, byStep };
  for (const part of message.split('; ')) {
    const at = /^steps\.(\d+)(?:\.|:)/.exec(part);
    if (at) {
      const index = Number(at[1]);
      byStep.set(index, [...(byStep.get(index) ?? []), part]);
    } else general.push(part);
  }
  return { general, byStep };
}

export const uniqueIds = (steps: DraftStep[]) => [
  ...new Set(steps.map((step) => step.id.trim()).filter(Boolean)),
];
