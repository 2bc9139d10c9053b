import { useState } from 'react';
import {
  Alert,
  Badge,
  Button,
  Code,
  Group,
  Progress,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  PLAN_LIMITS,
  USAGE_QUOTAS,
  type AccountStatusResponse,
  type Agent,
  type ApiTokenView,
  type MeResponse,
  type PageMeta,
  type QuotaUsage,
  type UsageQuota,
  type UsageResponse,
} from '@switchboard/contracts';
import { api } from '../api';
import { formatTime } from '../format';
import { ListTable } from '../ListTable';
import { ConfirmButton } from '../ConfirmButton';
import { ErrorAlert } from '../ErrorAlert';
import { Section, submitting } from '../Section';
import { ShownOnce } from '../ShownOnce';

type TokensAnswer = { tokens: ApiTokenView[]; meta: PageMeta };
type CreatedToken = ApiTokenView & { token: string };
type AgentsAnswer = { agents: Agent[]; meta: PageMeta };
type AddedAgent = { agent: Agent; invitation_url: string; invitation_expires_at: string };

/** The plan's quotas and their use, shared by the sections that show them. */
const useUsage = () =>
  useQuery({ queryKey: ['usage'], queryFn: () => api.op.get<UsageResponse>('getUsage') });

function ApiTokens() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const tokens = useQuery({
    queryKey: ['tokens'],
    queryFn: () => api.op.get<TokensAnswer>('getTokens'),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['tokens'] });
  const create = useMutation({
    mutationFn: () => api.op.post<CreatedToken>('createToken', { name }),
    onSuccess: (answer) => {
      setCreated(answer);
      setName('');
    },
    onSettled: refresh,
  });
  const revoke = useMutation({
    mutationFn: (token: ApiTokenView) => api.op.delete('deleteToken', { token_id: token.token_id }),
    onSettled: refresh,
  });
  return (
    <Section id="api-tokens" title="API tokens">
      {created && (
        <ShownOnce
          title={`Token “${created.name}”`}
          note="Copy it now: it is shown this once."
          value={created.token}
          copyLabel="Copy token"
          testId="new-token"
          onDone={() => setCreated(null)}
        />
      )}
      <form onSubmit={submitting(() => create.mutate())}>
        <Group align="flex-end">
          <TextInput
            label="Token name"
            placeholder="CRM sync"
            required
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
          />
          <Button type="submit" loading={create.isPending}>
            Create token
          </Button>
        </Group>
      </form>
      <ErrorAlert error={create.error ?? revoke.error} />
      <ErrorAlert error={tokens.error} />
      {tokens.data && tokens.data.tokens.length === 0 && (
        <Text c="dimmed" size="sm">
          No API tokens yet.
        </Text>
      )}
      {tokens.data && tokens.data.tokens.length > 0 && (
        <ListTable
          label="API tokens"
          headings={['Name', 'Token', 'Created', 'Last used', 'Actions']}
        >
          {tokens.data.tokens.map((token) => (
            <Table.Tr key={token.token_id}>
              <Table.Td>{token.name}</Table.Td>
              <Table.Td>
                <Code>{token.masked_token}</Code>
              </Table.Td>
              <Table.Td>{formatTime(token.created_at)}</Table.Td>
              <Table.Td>{formatTime(token.last_used_at)}</Table.Td>
              <Table.Td>
                <ConfirmButton
                  label={`Revoke ${token.name}`}
                  color="red"
                  question={`Revoke “${token.name}”? Clients using it stop working.`}
                  onConfirm={() => revoke.mutate(token)}
                >
                  Revoke
                </ConfirmButton>
              </Table.Td>
            </Table.Tr>
          ))}
        </ListTable>
      )}
    </Section>
  );
}

function Agents({ plan }: { plan: MeResponse['organization']['plan'] | undefined }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'agent' | 'admin'>('agent');
  const [invited, setInvited] = useState<AddedAgent | null>(null);
  const agents = useQuery({
    queryKey: ['agents'],
    queryFn: () => api.op.get<AgentsAnswer>('getAgents'),
  });
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ['agents'] });
    await queryClient.invalidateQueries({ queryKey: ['usage'] });
  };
  const add = useMutation({
    mutationFn: () => api.op.post<AddedAgent>('addAgent', { name, email, role }),
    onSuccess: (answer) => {
      setInvited(answer);
      setName('');
      setEmail('');
    },
    onSettled: refresh,
  });
  const update = useMutation({
    mutationFn: (change: { agent_id: number; role?: string; active?: boolean }) =>
      api.op.post('updateAgent', change),
    onSettled: refresh,
  });
  const limit = plan ? PLAN_LIMITS[plan].agents : undefined;
  // The seats the limit counts: a deactivated user keeps theirs until deleted.
  const usage = useUsage();
  const seatsUsed = usage.data?.usage.agents.used ?? undefined;
  return (
    <Section id="agents" title="Users and agents">
      {plan && (
        <Text size="sm" data-testid="agent-limit">
          {limit === null
            ? `Your ${plan} plan allows any number of users.`
            : `Your ${plan} plan allows ${limit} ${limit === 1 ? 'user' : 'users'}, the owner included` +
              (seatsUsed !== undefined ? `: ${seatsUsed} of ${limit} in use.` : '.')}
        </Text>
      )}
      {invited && (
        <Alert color="teal" title={`${invited.agent.name} is invited`} role="status">
          <Text size="sm">
            Send them this link (valid until {formatTime(invited.invitation_expires_at)}):
          </Text>
          <Code block>{invited.invitation_url}</Code>
        </Alert>
      )}
      <form onSubmit={submitting(() => add.mutate())}>
        <Group align="flex-end">
          <TextInput
            label="Name"
            required
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
          />
          <TextInput
            label="Email"
            type="email"
            required
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
          />
          <Select
            label="Role"
            data={[
              { value: 'agent', label: 'Agent' },
              { value: 'admin', label: 'Admin' },
            ]}
            value={role}
            onChange={(value) => setRole(value === 'admin' ? 'admin' : 'agent')}
            allowDeselect={false}
          />
          <Button type="submit" loading={add.isPending}>
            Add user
          </Button>
        </Group>
      </form>
      <ErrorAlert error={add.error} title="The user was not added" />
      <ErrorAlert error={update.error} />
      <ErrorAlert error={agents.error} />
      {agents.data && (
        <ListTable label="Users" headings={['Name', 'Email', 'Role', 'State', 'Actions']}>
          {agents.data.agents.map((agent) => (
            <Table.Tr key={agent.id}>
              <Table.Td>{agent.name}</Table.Td>
              <Table.Td>{agent.email}</Table.Td>
              <Table.Td>
                {agent.role === 'owner' ? (
                  'owner'
                ) : (
                  <Select
                    aria-label={`Role of ${agent.name}`}
                    size="xs"
                    w={110}
                    data={['agent', 'admin']}
                    value={agent.role}
                    allowDeselect={false}
                    onChange={(value) =>
                      value && update.mutate({ agent_id: agent.id, role: value })
                    }
                  />
                )}
              </Table.Td>
              <Table.Td>
                <Badge
                  color={
                    !agent.active ? 'gray.7' : agent.invitation_pending ? 'yellow.4' : 'teal.9'
                  }
                >
                  {!agent.active ? 'deactivated' : agent.invitation_pending ? 'invited' : 'active'}
                </Badge>
              </Table.Td>
              <Table.Td>
                {agent.role !== 'owner' && (
                  <Button
                    size="xs"
                    variant="default"
                    color={agent.active ? 'red' : 'teal'}
                    aria-label={`${agent.active ? 'Deactivate' : 'Reactivate'} ${agent.name}`}
                    onClick={() => update.mutate({ agent_id: agent.id, active: !agent.active })}
                  >
                    {agent.active ? 'Deactivate' : 'Reactivate'}
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </ListTable>
      )}
    </Section>
  );
}

function AccountHealth() {
  const health = useQuery({
    queryKey: ['account-status'],
    queryFn: () => api.op.get<AccountStatusResponse>('accountStatus'),
  });
  const rows: [string, string | null | undefined][] = health.data
    ? [
        ['Connection', health.data.connection_state],
        ['Phone number', `${health.data.display_name} (${health.data.phone_number})`],
        ['Account status', health.data.account_status],
        ['Review status', health.data.account_review_status],
        ['Quality rating', health.data.quality_rating],
        ['Messaging tier', health.data.messaging_tier],
      ]
    : [];
  return (
    <Section id="account-health" title="Account health" gap="xs">
      {health.isPending && <Text size="sm">Asking the provider…</Text>}
      <ErrorAlert error={health.error} />
      {health.data?.error && (
        <Alert color="red" role="alert" title="Disconnected">
          {health.data.error}
        </Alert>
      )}
      {rows.length > 0 && (
        <Table aria-label="Account health">
          <Table.Tbody>
            {rows.map(([label, value]) => (
              <Table.Tr key={label}>
                <Table.Th scope="row">{label}</Table.Th>
                <Table.Td>{value ?? 'unknown'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Section>
  );
}

const QUOTA_LABELS: Record<UsageQuota, string> = {
  messages: 'Messages this month',
  campaigns: 'Campaigns this month',
  contacts: 'Contacts',
  agents: 'Users',
};

function QuotaMeter({ label, quota }: { label: string; quota: QuotaUsage }) {
  const { used, limit } = quota;
  const percent = limit && used !== null ? Math.min(100, (used / limit) * 100) : 0;
  const full = limit !== null && used !== null && used >= limit;
  return (
    <Stack gap={4}>
      <Text size="sm">
        {label}: {used ?? 'unavailable'} {limit === null ? '(unlimited)' : `of ${limit}`}
      </Text>
      {limit !== null && (
        <Progress value={percent} color={full ? 'red' : undefined} aria-label={`${label} used`} />
      )}
    </Stack>
  );
}

function PlanUsage({ me }: { me: MeResponse['organization'] | undefined }) {
  const usage = useUsage();
  if (!me) return null;
  const missing = usage.data?.unavailable ?? [];
  return (
    <Section id="plan-usage" title={<>Plan: {me.plan}</>} gap="sm">
      <Text size="sm" c="dimmed">
        {me.name}, on the {me.plan} plan since {formatTime(me.plan_started_at)}.
        {usage.data && ` Monthly quotas count ${usage.data.month} (UTC).`}
      </Text>
      {usage.isPending && <Text size="sm">Counting…</Text>}
      <ErrorAlert error={usage.error} />
      {missing.length > 0 && (
        <Alert color="yellow" role="status" title="Some figures are unavailable">
          {missing.map((quota) => QUOTA_LABELS[quota]).join(', ')} could not be counted just now.{' '}
          <Button size="compact-xs" variant="default" onClick={() => void usage.refetch()}>
            Try again
          </Button>
        </Alert>
      )}
      {usage.data && (
        <SimpleGrid cols={{ base: 1, sm: 2 }} data-testid="plan-usage">
          {USAGE_QUOTAS.map((quota) => (
            <QuotaMeter key={quota} label={QUOTA_LABELS[quota]} quota={usage.data.usage[quota]} />
          ))}
        </SimpleGrid>
      )}
    </Section>
  );
}

export function SettingsPage() {
  const me = useQuery({ queryKey: ['me'], queryFn: () => api.op.get<MeResponse>('me') });
  return (
    <Stack>
      <Title order={1}>Settings</Title>
      <PlanUsage me={me.data?.organization} />
      <Agents plan={me.data?.organization.plan} />
      <ApiTokens />
      <AccountHealth />
    </Stack>
  );
}
