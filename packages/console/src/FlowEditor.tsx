import { useState, type FormEvent } from 'react';
import {
  Alert,
  Button,
  Group,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import {
  MAX_FLOW_BRANCHES,
  MAX_FLOW_STEPS,
  type FlowResponse,
  type FlowView,
  type TemplateView,
  type TemplatesResponse,
} from '@switchboard/contracts';
import { api, errorText } from './api';
import { SourcePicker } from './VariableSource';
import {
  blankStep,
  buttonsOf,
  draftOfFlow,
  problemsByPlace,
  requestOf,
  templateKey,
  uniqueIds,
  variableCount,
  type BranchWhen,
  type DraftBranch,
  type DraftFlow,
  type DraftStep,
  type StepType,
} from './flow-draft';

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

/** What a step sends: a text (with buttons on a message step) or an approved template. */
function MessageFields({
  label,
  step,
  templates,
  set,
}: {
  label: string;
  step: DraftStep;
  templates: TemplateView[];
  set: (change: Partial<DraftStep>) => void;
}) {
  const optional = step.type !== 'message';
  const count = variableCount(step, templates);
  const choices = templates.map((template) => ({
    value: templateKey(template),
    label: `${template.template_name} (${template.template_language})`,
  }));
  // A template the step had that is no longer approved is still offered.
  if (step.template && !choices.some((choice) => choice.value === step.template)) {
    choices.push({ value: step.template, label: step.template.replace('|', ' (') + ')' });
  }
  return (
    <>
      <SegmentedControl
        aria-label={`${label} sends`}
        data={[
          { value: 'text', label: optional ? 'Text (optional)' : 'Text' },
          { value: 'template', label: 'Template' },
        ]}
        value={step.sends}
        onChange={(value) => set({ sends: value === 'template' ? 'template' : 'text' })}
        w="fit-content"
      />
      {step.sends === 'text' ? (
        <Textarea
          label={`${label} message`}
          description={
            optional
              ? 'Optional: sent before the flow ends'
              : '{{name}} is the contact’s name; {{1}}, {{2}}… are filled from the variables'
          }
          required={!optional}
          autosize
          minRows={1}
          value={step.text}
          onChange={(event) => set({ text: event.currentTarget.value })}
        />
      ) : (
        <Select
          label={`${label} template`}
          placeholder={templates.length ? 'Choose' : 'No approved templates'}
          data={choices}
          value={step.template || null}
          clearable={optional}
          onChange={(value) => set({ template: value ?? '' })}
          maw={420}
        />
      )}
      {Array.from({ length: count }, (_, index) => (
        <SourcePicker
          key={index}
          label={`${label} {{${index + 1}}}`}
          value={step.variables[index] ?? 'contact.name'}
          onChange={(value) => {
            const variables = [...step.variables];
            variables[index] = value;
            set({ variables });
          }}
          withData={false}
        />
      ))}
    </>
  );
}

function StepCard({
  number,
  step,
  targets,
  templates,
  problems,
  onChange,
  onRemove,
}: {
  number: number;
  step: DraftStep;
  templates: TemplateView[];
  targets: string[];
  problems: string[];
  onChange: (step: DraftStep) => void;
  onRemove: () => void;
}) {
  const set = (change: Partial<DraftStep>) => onChange({ ...step, ...change });
  const others = targets.filter((id) => id !== step.id.trim());
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
          <MessageFields label={label} step={step} templates={templates} set={set} />
        )}
        {step.type === 'message' && (
          <>
            {step.sends === 'text' && (
              <TextInput
                label={`${label} buttons`}
                description="Up to 3 titles, separated by commas (optional)"
                value={step.buttons}
                onChange={(event) => set({ buttons: event.currentTarget.value })}
              />
            )}
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
  const templates = useQuery({
    queryKey: ['templates', 'APPROVED'],
    queryFn: () => api.op.get<TemplatesResponse>('getTemplates', { status: 'APPROVED' }),
  });
  const approved = templates.data?.templates ?? [];
  const save = useMutation({
    mutationFn: () =>
      flow
        ? api.op.post<FlowResponse>('updateFlow', { id: flow.id, ...requestOf(draft, approved) })
        : api.op.post<FlowResponse>('addFlow', requestOf(draft, approved)),
    onSuccess: () => onDone(true),
  });
  const { general, byStep } = problemsByPlace(save.error ? errorText(save.error) : null);
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
              templates={approved}
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
