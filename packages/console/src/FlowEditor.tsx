import { useState, type FormEvent } from 'react';
import {
  Alert,
  Button,
  Group,
  Paper,
  Select,
  Stack,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import {
  MAX_FLOW_BRANCHES,
  MAX_FLOW_STEPS,
  type AddFlowRequestInput,
  type CampaignMessage,
  type FlowBranch,
  type FlowResponse,
  type FlowStep,
  type FlowView,
} from '@switchboard/contracts';
import { api, errorText } from './api';

type StepType = FlowStep['type'];
type BranchWhen = 'button' | 'keywords' | 'any';

interface DraftBranch {
  when: BranchWhen;
  /** The button id, or the keywords separated by commas. */
  value: string;
  next: string;
}

/** A step as the form holds it; `original` keeps what the form does not show (header, image…). */
interface DraftStep {
  id: string;
  type: StepType;
  text: string;
  /** Titles separated by commas; each keeps its id when its title is unchanged. */
  buttons: string;
  branches: DraftBranch[];
  next: string;
  field: string;
  value: string;
  group: string;
  original?: FlowStep;
}

interface DraftFlow {
  name: string;
  triggers: string;
  startStep: string;
  steps: DraftStep[];
}

const STEP_KINDS: { value: StepType; label: string }[] = [
  { value: 'message', label: 'Send a message and wait for the reply' },
  { value: 'set_field', label: 'Set a contact field' },
  { value: 'add_to_group', label: 'Add to a group' },
  { value: 'hand_over', label: 'Hand over to a person' },
  { value: 'end', label: 'End the flow' },
];

const WHEN_CHOICES: { value: BranchWhen; label: string }[] = [
  { value: 'button', label: 'Button chosen' },
  { value: 'keywords', label: 'Reply has keywords' },
  { value: 'any', label: 'Any reply' },
];

const blankStep = (id: string, type: StepType = 'message'): DraftStep => ({
  id,
  type,
  text: '',
  buttons: '',
  branches: [],
  next: '',
  field: 'name',
  value: '',
  group: '',
});

const messageText = (message: CampaignMessage | undefined) =>
  message?.type === 'text' ? message.text : '';

function draftOfStep(step: FlowStep): DraftStep {
  const draft: DraftStep = { ...blankStep(step.id, step.type), original: step };
  switch (step.type) {
    case 'message':
      draft.text = messageText(step.message);
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
      draft.text = messageText(step.message);
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
function buttonsOf(draft: DraftStep): { id: string; title: string }[] {
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

function branchOf(branch: DraftBranch): FlowBranch {
  if (branch.when === 'button') return { button: branch.value, next: branch.next };
  if (branch.when === 'keywords') return { keywords: splitList(branch.value), next: branch.next };
  return { any: true, next: branch.next };
}

/** A template message is kept as it was while its text is left empty (the form writes texts). */
function keptMessage(draft: DraftStep, withButtons: boolean): CampaignMessage | undefined {
  const before = draft.original && 'message' in draft.original ? draft.original.message : undefined;
  if (before?.type === 'template' && draft.text === '') return before;
  if (draft.text === '') return undefined;
  return textMessage(draft, withButtons);
}

function stepOf(draft: DraftStep): FlowStep {
  const variables =
    draft.original && 'variables' in draft.original && draft.original.variables
      ? { variables: draft.original.variables }
      : {};
  const next = draft.next ? { next: draft.next } : {};
  switch (draft.type) {
    case 'message':
      return {
        id: draft.id,
        type: 'message',
        message: keptMessage(draft, true) ?? textMessage(draft, true),
        ...variables,
        ...(draft.branches.length > 0 ? { branches: draft.branches.map(branchOf) } : {}),
        ...next,
      };
    case 'set_field':
      return { id: draft.id, type: 'set_field', field: draft.field, value: draft.value, ...next };
    case 'add_to_group':
      return { id: draft.id, type: 'add_to_group', group: draft.group, ...next };
    case 'hand_over':
    case 'end': {
      const message = keptMessage(draft, false);
      return {
        id: draft.id,
        type: draft.type,
        ...(message ? { message, ...variables } : {}),
      };
    }
  }
}

function requestOf(draft: DraftFlow): AddFlowRequestInput {
  return {
    name: draft.name,
    triggers: draft.triggers,
    steps: draft.steps.map(stepOf),
    ...(draft.startStep ? { start_step: draft.startStep } : {}),
  };
}

/**
 * The API's refusal split by where each problem is: `steps.<n>…` under that step, the rest
 * (name, triggers, start step, a trigger another flow uses) above the steps.
 */
function problemsByPlace(error: unknown): { general: string[]; byStep: Map<number, string[]> } {
  const general: string[] = [];
  const byStep = new Map<number, string[]>();
  if (!error) return { general, byStep };
  for (const part of errorText(error).split('; ')) {
    const at = /^steps\.(\d+)(?:\.|:)/.exec(part);
    if (at) {
      const index = Number(at[1]);
      byStep.set(index, [...(byStep.get(index) ?? []), part]);
    } else general.push(part);
  }
  return { general, byStep };
}

const uniqueIds = (steps: DraftStep[]) => [
  ...new Set(steps.map((step) => step.id.trim()).filter(Boolean)),
];

function BranchRow({
  stepNumber,
  index,
  branch,
  buttonChoices,
  targets,
  onChange,
  onRemove,
}: {
  stepNumber: number;
  index: number;
  branch: DraftBranch;
  buttonChoices: { value: string; label: string }[];
  targets: string[];
  onChange: (branch: DraftBranch) => void;
  onRemove: () => void;
}) {
  const name = `step ${stepNumber} branch ${index + 1}`;
  return (
    <Group align="flex-end" gap="xs">
      <Select
        label="When"
        aria-label={`When (${name})`}
        data={WHEN_CHOICES}
        value={branch.when}
        allowDeselect={false}
        onChange={(value) =>
          onChange({ ...branch, when: (value ?? 'any') as BranchWhen, value: '' })
        }
        w={190}
      />
      {branch.when === 'button' && (
        <Select
          label="Button"
          aria-label={`Button (${name})`}
          data={buttonChoices}
          placeholder={buttonChoices.length ? 'Choose' : 'Add buttons first'}
          value={branch.value || null}
          onChange={(value) => onChange({ ...branch, value: value ?? '' })}
          w={170}
        />
      )}
      {branch.when === 'keywords' && (
        <TextInput
          label="Keywords"
          aria-label={`Keywords (${name})`}
          required
          value={branch.value}
          onChange={(event) => onChange({ ...branch, value: event.currentTarget.value })}
        />
      )}
      <Select
        label="Go to"
        aria-label={`Go to (${name})`}
        data={targets}
        value={branch.next || null}
        onChange={(value) => onChange({ ...branch, next: value ?? '' })}
        w={170}
      />
      <Button variant="default" aria-label={`Remove ${name}`} onClick={onRemove}>
        Remove
      </Button>
    </Group>
  );
}

function StepCard({
  number,
  step,
  targets,
  problems,
  onChange,
  onRemove,
}: {
  number: number;
  step: DraftStep;
  targets: string[];
  problems: string[];
  onChange: (step: DraftStep) => void;
  onRemove: () => void;
}) {
  const set = (change: Partial<DraftStep>) => onChange({ ...step, ...change });
  const others = targets.filter((id) => id !== step.id.trim());
  const templateKept =
    step.original && 'message' in step.original && step.original.message?.type === 'template'
      ? step.original.message.template_name
      : null;
  const buttonChoices = buttonsOf(step).map((button) => ({
    value: button.id,
    label: button.title,
  }));
  const label = `Step ${number}`;
  return (
    <Paper
      withBorder
      p="sm"
      component="fieldset"
      aria-label={`${label}: ${step.id || 'unnamed'}`}
      data-testid="flow-step"
      style={{ margin: 0, minWidth: 0 }}
    >
      <Stack gap="xs">
        <Group align="flex-end">
          <TextInput
            label={`${label} id`}
            description="Letters, digits, _ or -"
            required
            value={step.id}
            onChange={(event) => set({ id: event.currentTarget.value })}
            w={180}
          />
          <Select
            label={`${label} does`}
            data={STEP_KINDS}
            value={step.type}
            allowDeselect={false}
            onChange={(value) => set({ type: (value ?? 'message') as StepType })}
            w={340}
          />
          <Button variant="default" aria-label={`Remove step ${number}`} onClick={onRemove}>
            Remove step
          </Button>
        </Group>
        {(step.type === 'message' || step.type === 'hand_over' || step.type === 'end') && (
          <Textarea
            label={`${label} message`}
            description={
              templateKept
                ? `Sends the template ${templateKept}; write a text to send that instead`
                : step.type === 'message'
                  ? '{{name}} is the contact’s name'
                  : 'Optional: sent before the flow ends'
            }
            required={step.type === 'message' && !templateKept}
            autosize
            minRows={1}
            value={step.text}
            onChange={(event) => set({ text: event.currentTarget.value })}
          />
        )}
        {step.type === 'message' && (
          <>
            <TextInput
              label={`${label} buttons`}
              description="Up to 3 titles, separated by commas (optional)"
              value={step.buttons}
              onChange={(event) => set({ buttons: event.currentTarget.value })}
            />
            {step.branches.map((branch, index) => (
              <BranchRow
                key={index}
                stepNumber={number}
                index={index}
                branch={branch}
                buttonChoices={buttonChoices}
                targets={others}
                onChange={(changed) =>
                  set({ branches: step.branches.map((b, i) => (i === index ? changed : b)) })
                }
                onRemove={() => set({ branches: step.branches.filter((_, i) => i !== index) })}
              />
            ))}
            <Group>
              <Button
                variant="default"
                size="xs"
                disabled={step.branches.length >= MAX_FLOW_BRANCHES}
                onClick={() =>
                  set({
                    branches: [
                      ...step.branches,
                      {
                        when: buttonChoices.length ? 'button' : 'keywords',
                        value: '',
                        next: '',
                      },
                    ],
                  })
                }
              >
                Add a branch to step {number}
              </Button>
            </Group>
          </>
        )}
        {step.type === 'set_field' && (
          <Group align="flex-end">
            <TextInput
              label={`${label} field`}
              description="name, email, language, subscription or custom.<key>"
              required
              value={step.field}
              onChange={(event) => set({ field: event.currentTarget.value })}
            />
            <TextInput
              label={`${label} value`}
              description="{{reply}} is the customer’s reply"
              value={step.value}
              onChange={(event) => set({ value: event.currentTarget.value })}
            />
          </Group>
        )}
        {step.type === 'add_to_group' && (
          <TextInput
            label={`${label} group`}
            description="A group name (made if new) or id"
            required
            value={step.group}
            onChange={(event) => set({ group: event.currentTarget.value })}
          />
        )}
        {(step.type === 'message' || step.type === 'set_field' || step.type === 'add_to_group') && (
          <Select
            label={step.type === 'message' ? `${label}: any other reply goes to` : `${label}: then`}
            placeholder={step.type === 'message' ? 'Repeat the message' : 'End the flow'}
            data={others}
            value={step.next || null}
            clearable
            onChange={(value) => set({ next: value ?? '' })}
            w={260}
          />
        )}
        {problems.map((problem) => (
          <Alert key={problem} color="red" role="alert" p="xs">
            {problem.replace(/^steps\.\d+\.?/, '').replace(/^:\s*/, '')}
          </Alert>
        ))}
      </Stack>
    </Paper>
  );
}

/** Creating a flow (no `flow`) or changing one: its trigger, its steps, where each leads. */
export function FlowEditor({
  flow,
  onDone,
}: {
  flow?: FlowView;
  onDone: (saved: boolean) => void;
}) {
  const [draft, setDraft] = useState<DraftFlow>(() =>
    flow
      ? draftOfFlow(flow)
      : { name: '', triggers: '', startStep: '', steps: [blankStep('start')] },
  );
  const save = useMutation({
    mutationFn: () =>
      flow
        ? api.op.post<FlowResponse>('updateFlow', { id: flow.id, ...requestOf(draft) })
        : api.op.post<FlowResponse>('addFlow', requestOf(draft)),
    onSuccess: () => onDone(true),
  });
  const { general, byStep } = problemsByPlace(save.error);
  const ids = uniqueIds(draft.steps);
  const setStep = (index: number, step: DraftStep) =>
    setDraft({ ...draft, steps: draft.steps.map((s, i) => (i === index ? step : s)) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const title = flow ? `Edit flow ${flow.name}` : 'New flow';
  return (
    <Paper withBorder p="sm" component="section" aria-label={title}>
      <form onSubmit={submit}>
        <Stack gap="sm">
          <Title order={3} size="h5">
            {title}
          </Title>
          <Group align="flex-end" grow>
            <TextInput
              label="Flow name"
              required
              value={draft.name}
              onChange={(event) => setDraft({ ...draft, name: event.currentTarget.value })}
            />
            <TextInput
              label="Trigger keywords"
              description="A message equal to one of them starts the flow; separated by commas"
              required
              value={draft.triggers}
              onChange={(event) => setDraft({ ...draft, triggers: event.currentTarget.value })}
            />
            <Select
              label="Start at"
              placeholder="The first step"
              data={ids}
              value={draft.startStep || null}
              clearable
              onChange={(value) => setDraft({ ...draft, startStep: value ?? '' })}
            />
          </Group>
          <Text size="sm" fw={700}>
            Steps
          </Text>
          {draft.steps.map((step, index) => (
            <StepCard
              key={index}
              number={index + 1}
              step={step}
              targets={ids}
              problems={byStep.get(index) ?? []}
              onChange={(changed) => setStep(index, changed)}
              onRemove={() =>
                setDraft({ ...draft, steps: draft.steps.filter((_, i) => i !== index) })
              }
            />
          ))}
          <Group>
            <Button
              variant="default"
              disabled={draft.steps.length >= MAX_FLOW_STEPS}
              onClick={() =>
                setDraft({
                  ...draft,
                  steps: [...draft.steps, blankStep(`step_${draft.steps.length + 1}`)],
                })
              }
            >
              Add step
            </Button>
          </Group>
          {general.length > 0 && (
            <Alert color="red" role="alert" title="The flow was not saved">
              {general.join('; ')}
            </Alert>
          )}
          {general.length === 0 && byStep.size > 0 && (
            <Alert color="red" role="alert" title="The flow was not saved">
              See the steps marked above.
            </Alert>
          )}
          <Group>
            <Button type="submit" loading={save.isPending}>
              {flow ? 'Save flow' : 'Create flow'}
            </Button>
            <Button variant="default" onClick={() => onDone(false)}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
