import { useEffect, useState } from 'react';
import {
  Badge,
  Button,
  Group,
  List,
  Paper,
  PasswordInput,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  AUTOMATED_REPLY_KINDS,
  type AIBotSettingsResponse,
  type AutomatedRepliesResponse,
  type AutomatedReply,
  type FlowStep,
  type FlowView,
  type FlowsResponse,
} from '@switchboard/contracts';
import { api } from '../api';
import { ListTable } from '../ListTable';
import { ConfirmButton } from '../ConfirmButton';
import { ErrorAlert } from '../ErrorAlert';
import { Section, submitting } from '../Section';
import { FlowEditor } from '../FlowEditor';

function AutomatedReplies() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<string>('contains');
  const [triggers, setTriggers] = useState('');
  const [message, setMessage] = useState('');
  const replies = useQuery({
    queryKey: ['automated-replies'],
    queryFn: () => api.op.get<AutomatedRepliesResponse>('getAutomatedReplies', { per_page: 500 }),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['automated-replies'] });
  const add = useMutation({
    mutationFn: () =>
      api.op.post('addAutomatedReply', {
        name,
        kind,
        message,
        ...(kind === 'welcome' ? {} : { triggers }),
      }),
    onSuccess: () => {
      setName('');
      setTriggers('');
      setMessage('');
    },
    onSettled: refresh,
  });
  const change = useMutation({
    mutationFn: ({ reply, remove }: { reply: AutomatedReply; remove?: boolean }) =>
      remove
        ? api.op.delete('deleteAutomatedReply', { id: reply.id })
        : api.op.post('updateAutomatedReply', { id: reply.id, active: !reply.active }),
    onSettled: refresh,
  });
  return (
    <Section id="automated-replies" title="Automated replies">
      <form onSubmit={submitting(() => add.mutate())}>
        <Group align="flex-end">
          <TextInput
            label="Reply name"
            required
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
          />
          <Select
            label="When"
            data={AUTOMATED_REPLY_KINDS.map((value) => ({
              value,
              label:
                value === 'exact'
                  ? 'Message is exactly'
                  : value === 'contains'
                    ? 'Message contains'
                    : 'First message (welcome)',
            }))}
            value={kind}
            allowDeselect={false}
            onChange={(value) => setKind(value ?? 'contains')}
          />
          {kind !== 'welcome' && (
            <TextInput
              label="Keywords"
              description="Separated by commas"
              required
              value={triggers}
              onChange={(event) => setTriggers(event.currentTarget.value)}
            />
          )}
          <TextInput
            label="Reply text"
            description="{{name}} is the contact's name"
            required
            value={message}
            onChange={(event) => setMessage(event.currentTarget.value)}
            miw={260}
          />
          <Button type="submit" loading={add.isPending}>
            Add reply
          </Button>
        </Group>
      </form>
      <ErrorAlert error={add.error ?? change.error} />
      <ErrorAlert error={replies.error} />
      {replies.data?.replies.length === 0 && (
        <Text c="dimmed" size="sm">
          No automated replies yet.
        </Text>
      )}
      {replies.data && replies.data.replies.length > 0 && (
        <ListTable
          label="Automated replies"
          headings={['Name', 'When', 'Reply', 'Sent', 'State', 'Actions']}
        >
          {replies.data.replies.map((reply) => (
            <Table.Tr key={reply.id}>
              <Table.Td>{reply.name}</Table.Td>
              <Table.Td>
                {reply.kind === 'welcome'
                  ? 'first message'
                  : `${reply.kind}: ${reply.triggers.join(', ')}`}
              </Table.Td>
              <Table.Td>
                <Text size="sm" lineClamp={2}>
                  {reply.message}
                </Text>
              </Table.Td>
              <Table.Td>{reply.used}</Table.Td>
              <Table.Td>
                <Badge color={reply.active ? 'teal.9' : 'gray.7'}>
                  {reply.active ? 'active' : 'off'}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Button
                    size="xs"
                    variant="default"
                    aria-label={`${reply.active ? 'Turn off' : 'Turn on'} ${reply.name}`}
                    onClick={() => change.mutate({ reply })}
                  >
                    {reply.active ? 'Turn off' : 'Turn on'}
                  </Button>
                  <Button
                    size="xs"
                    variant="default"
                    aria-label={`Delete ${reply.name}`}
                    onClick={() => change.mutate({ reply, remove: true })}
                  >
                    Delete
                  </Button>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </ListTable>
      )}
    </Section>
  );
}

function stepSummary(step: FlowStep): string {
  switch (step.type) {
    case 'message':
      return step.message.type === 'text'
        ? `Send “${step.message.text}”`
        : `Send template ${step.message.template_name}`;
    case 'set_field':
      return `Set ${step.field} to “${step.value}”`;
    case 'add_to_group':
      return `Add to group ${step.group}`;
    case 'hand_over':
      return 'Hand over to a person';
    case 'end':
      return 'End';
  }
}

function stepExits(step: FlowStep): string[] {
  const exits: string[] = [];
  if (step.type === 'message') {
    for (const branch of step.branches ?? []) {
      const when = branch.button
        ? `button “${branch.button}”`
        : branch.keywords
          ? `reply ${branch.keywords.join(' / ')}`
          : 'any reply';
      exits.push(`${when} → ${branch.next}`);
    }
  }
  if ('next' in step && step.next) exits.push(`then → ${step.next}`);
  return exits;
}

/** A flow as the list of its steps, each with where it leads. */
function FlowSteps({ flow }: { flow: FlowView }) {
  return (
    <List size="sm" spacing={4}>
      {flow.steps.map((step) => (
        <List.Item key={step.id}>
          <Text size="sm" component="span" fw={step.id === flow.start_step ? 700 : 400}>
            {step.id}
            {step.id === flow.start_step ? ' (start)' : ''}: {stepSummary(step)}
          </Text>
          {stepExits(step).map((exit) => (
            <Text size="xs" c="dimmed" key={exit}>
              {exit}
            </Text>
          ))}
        </List.Item>
      ))}
    </List>
  );
}

function Flows() {
  const queryClient = useQueryClient();
  /** The flow being written: 'new', a flow's id, or none. */
  const [editing, setEditing] = useState<'new' | number | null>(null);
  const flows = useQuery({
    queryKey: ['flows'],
    queryFn: () => api.op.get<FlowsResponse>('getFlows', { per_page: 100 }),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['flows'] });
  const change = useMutation({
    mutationFn: ({ flow, remove }: { flow: FlowView; remove?: boolean }) =>
      remove
        ? api.op.delete('deleteFlow', { id: flow.id })
        : api.op.post('updateFlow', { id: flow.id, active: !flow.active }),
    onSettled: refresh,
  });
  const done = (saved: boolean) => {
    setEditing(null);
    if (saved) void refresh();
  };
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="flows">
      <Stack>
        <Group justify="space-between">
          <Title order={2} size="h4" id="flows">
            Flows
          </Title>
          {editing === null && (
            <Button variant="default" onClick={() => setEditing('new')}>
              New flow
            </Button>
          )}
        </Group>
        {editing === 'new' && <FlowEditor onDone={done} />}
        <ErrorAlert error={flows.error} />
        <ErrorAlert error={change.error} />
        {flows.data?.flows.length === 0 && editing !== 'new' && (
          <Text c="dimmed" size="sm">
            No flows yet. A flow starts when a customer writes its trigger and walks them through
            its steps.
          </Text>
        )}
        {flows.data?.flows.map((flow) =>
          editing === flow.id ? (
            <FlowEditor key={flow.id} flow={flow} onDone={done} />
          ) : (
            <Paper key={flow.id} withBorder p="sm" data-testid="flow">
              <Group justify="space-between">
                <div>
                  <Text fw={600}>{flow.name}</Text>
                  <Text size="xs">Starts on: {flow.triggers.join(', ')}</Text>
                </div>
                <Group gap="xs">
                  <Badge color={flow.active ? 'teal.9' : 'gray.7'}>
                    {flow.active ? 'active' : 'off'}
                  </Badge>
                  <Button
                    size="xs"
                    variant="default"
                    aria-label={`${flow.active ? 'Turn off' : 'Turn on'} ${flow.name}`}
                    onClick={() => change.mutate({ flow })}
                  >
                    {flow.active ? 'Turn off' : 'Turn on'}
                  </Button>
                  <Button
                    size="xs"
                    variant="default"
                    aria-label={`Edit ${flow.name}`}
                    disabled={editing !== null}
                    onClick={() => setEditing(flow.id)}
                  >
                    Edit
                  </Button>
                  <ConfirmButton
                    label={`Delete ${flow.name}`}
                    question={`Delete the flow “${flow.name}”?`}
                    onConfirm={() => change.mutate({ flow, remove: true })}
                  >
                    Delete
                  </ConfirmButton>
                </Group>
              </Group>
              <FlowSteps flow={flow} />
            </Paper>
          ),
        )}
      </Stack>
    </Paper>
  );
}

function AIBot() {
  const queryClient = useQueryClient();
  const settings = useQuery({
    queryKey: ['ai-bot'],
    queryFn: () => api.op.get<AIBotSettingsResponse>('getAIBotSettings'),
  });
  const [endpoint, setEndpoint] = useState('');
  const [model, setModel] = useState('');
  const [prompt, setPrompt] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [enabled, setEnabled] = useState(false);
  useEffect(() => {
    const current = settings.data?.settings;
    if (!current) return;
    setEndpoint(current.endpoint ?? '');
    setModel(current.model ?? '');
    setPrompt(current.system_prompt);
    setEnabled(current.enabled);
  }, [settings.data]);
  const save = useMutation({
    mutationFn: () =>
      api.op.post<AIBotSettingsResponse>('updateAIBotSettings', {
        ...(endpoint ? { endpoint } : {}),
        ...(model ? { model } : {}),
        system_prompt: prompt,
        enabled,
        ...(apiKey ? { api_key: apiKey } : {}),
      }),
    onSuccess: (answer) => {
      setApiKey('');
      queryClient.setQueryData(['ai-bot'], answer);
    },
  });
  const current = settings.data?.settings;
  return (
    <Section id="ai-bot" title="AI bot" onSubmit={() => save.mutate()}>
      <Switch
        label="Answer customers with the AI bot (each contact can still be switched off)"
        checked={enabled}
        onChange={(event) => setEnabled(event.currentTarget.checked)}
      />
      <Group grow align="flex-start">
        <TextInput
          label="Endpoint"
          description="An OpenAI-compatible chat completions URL"
          value={endpoint}
          onChange={(event) => setEndpoint(event.currentTarget.value)}
        />
        <TextInput
          label="Model"
          value={model}
          onChange={(event) => setModel(event.currentTarget.value)}
        />
      </Group>
      <PasswordInput
        label="API key"
        description={
          current?.has_key
            ? `A key ending in ${current.api_key_last_four ?? '…'} is stored; type a new one to replace it`
            : 'Stored sealed, never shown again'
        }
        value={apiKey}
        onChange={(event) => setApiKey(event.currentTarget.value)}
      />
      <Textarea
        label="Instructions (system prompt)"
        autosize
        minRows={3}
        value={prompt}
        onChange={(event) => setPrompt(event.currentTarget.value)}
      />
      <ErrorAlert error={save.error} />
      {save.isSuccess && (
        <Text size="sm" role="status">
          Saved.
        </Text>
      )}
      <Group>
        <Button type="submit" loading={save.isPending}>
          Save AI bot settings
        </Button>
      </Group>
    </Section>
  );
}

export function AutomationPage() {
  return (
    <Stack>
      <Title order={1}>Automation</Title>
      <AutomatedReplies />
      <Flows />
      <AIBot />
    </Stack>
  );
}
