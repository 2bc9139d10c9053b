import { useState } from 'react';
import {
  Badge,
  Button,
  Group,
  MultiSelect,
  Progress,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  placeholderSources,
  type CampaignResponse,
  type CampaignType,
  type CampaignView,
  type CampaignsResponse,
  type CreateCampaignRequestInput,
  type GroupsResponse,
  type TemplateView,
  type TemplatesResponse,
} from '@switchboard/contracts';
import { api } from '../api';
import { formatTime } from '../format';
import { useFallbackPoll } from '../live';
import { ListTable } from '../ListTable';
import { ConfirmButton } from '../ConfirmButton';
import { ErrorAlert } from '../ErrorAlert';
import { Section } from '../Section';
import { SourcePicker } from '../VariableSource';
import { placeholderCount, templateBody } from '../template-text';

/** Delivered and read keep arriving for a while after the last message was handed over. */
const RECEIPTS_SETTLE_MS = 10 * 60_000;
const stillMoving = (campaign: CampaignView) =>
  campaign.status === 'started' ||
  campaign.status === 'scheduled' ||
  (campaign.completed_at !== null &&
    Date.now() - new Date(campaign.completed_at).getTime() < RECEIPTS_SETTLE_MS &&
    campaign.read + campaign.failed < campaign.total_contacts);

const STATUS_COLORS: Record<CampaignView['status'], string> = {
  draft: 'gray.7',
  scheduled: 'blue.8',
  started: 'yellow.4',
  completed: 'teal.9',
  canceled: 'red.9',
};

/** A template's parts beyond its body that need a value per message: header and URL buttons. */
interface TemplateSlots {
  /** IMAGE, VIDEO or DOCUMENT: the media every recipient gets. */
  mediaHeader: 'image' | 'video' | 'document' | null;
  /** A TEXT header with a `{{1}}`. */
  headerVariable: boolean;
  /** URL buttons whose URL ends in `{{1}}`: their position among the buttons and their text. */
  urlButtons: { index: number; text: string }[];
}

function templateSlots(template: TemplateView | undefined): TemplateSlots {
  const slots: TemplateSlots = { mediaHeader: null, headerVariable: false, urlButtons: [] };
  for (const component of template?.components ?? []) {
    const type = String(component.type).toUpperCase();
    if (type === 'HEADER') {
      const format = String(component.format ?? 'TEXT').toUpperCase();
      if (format === 'IMAGE' || format === 'VIDEO' || format === 'DOCUMENT') {
        slots.mediaHeader = format.toLowerCase() as TemplateSlots['mediaHeader'];
      }
      if (format === 'TEXT' && typeof component.text === 'string') {
        slots.headerVariable = placeholderCount(component.text) > 0;
      }
    }
    if (type === 'BUTTONS' && Array.isArray(component.buttons)) {
      (component.buttons as { type?: string; text?: string; url?: string }[]).forEach(
        (button, index) => {
          if (String(button.type).toUpperCase() === 'URL' && /\{\{.+\}\}/.test(button.url ?? '')) {
            slots.urlButtons.push({ index, text: button.text ?? `#${index + 1}` });
          }
        },
      );
    }
  }
  return slots;
}

function VariableMapping(props: {
  count: number;
  values: string[];
  onChange: (values: string[]) => void;
  withData: boolean;
}) {
  const { count, values, onChange, withData } = props;
  if (count === 0) return null;
  const set = (index: number, value: string) => {
    const next = [...values];
    next[index] = value;
    onChange(next);
  };
  return (
    <Stack gap="xs">
      <Text size="sm" fw={700}>
        Variables
      </Text>
      {Array.from({ length: count }, (_, index) => (
        <SourcePicker
          key={index}
          label={`{{${index + 1}}}`}
          value={values[index] ?? 'contact.name'}
          onChange={(value) => set(index, value)}
          withData={withData}
        />
      ))}
    </Stack>
  );
}

const CAMPAIGN_KINDS = [
  { value: 'regular', label: 'Regular' },
  { value: 'api', label: 'API' },
  { value: 'bot', label: 'Bot' },
];

const KIND_HINTS: Record<CampaignType, string> = {
  regular: 'Sent to an audience, now, at a time, or kept as a draft.',
  api: 'Sent to one phone number at a time by your systems, through the sendcampaigns operation.',
  bot: 'Sent to a customer whose message holds one of its keywords.',
};

function CreateCampaign({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<CampaignType>('regular');
  const [keywords, setKeywords] = useState('');
  const [kind, setKind] = useState<'text' | 'template'>('text');
  const [text, setText] = useState('');
  const [templateId, setTemplateId] = useState<string | null>(null);
  const [variables, setVariables] = useState<string[]>([]);
  /** The template's header media link, its header `{{1}}` and its URL buttons' `{{1}}`. */
  const [mediaLink, setMediaLink] = useState('');
  const [headerSource, setHeaderSource] = useState('contact.name');
  const [buttonSources, setButtonSources] = useState<Record<number, string>>({});
  const [audience, setAudience] = useState<'all' | 'groups'>('all');
  const [groupIds, setGroupIds] = useState<string[]>([]);
  const [when, setWhen] = useState<'now' | 'later' | 'draft'>('now');
  const [scheduledAt, setScheduledAt] = useState('');
  const templates = useQuery({
    queryKey: ['templates', 'APPROVED'],
    queryFn: () => api.op.get<TemplatesResponse>('getTemplates', { status: 'APPROVED' }),
  });
  const groups = useQuery({
    queryKey: ['groups'],
    queryFn: () => api.op.get<GroupsResponse>('getGroups', { per_page: 500 }),
  });
  const template = templates.data?.templates.find((t) => String(t.id) === templateId);
  const count = placeholderCount(kind === 'text' ? text : templateBody(template));
  const slots = templateSlots(kind === 'template' ? template : undefined);
  const create = useMutation({
    mutationFn: () => {
      const request: CreateCampaignRequestInput = {
        name,
        type,
        message:
          kind === 'text'
            ? { type: 'text', text }
            : {
                type: 'template',
                template_name: template?.template_name ?? '',
                template_language: template?.template_language ?? '',
                ...(slots.mediaHeader
                  ? { header_media: { type: slots.mediaHeader, link: mediaLink } }
                  : {}),
                ...(slots.headerVariable ? { header_variable: headerSource } : {}),
                ...(slots.urlButtons.length > 0
                  ? {
                      button_variables: slots.urlButtons.map(({ index }) => ({
                        index,
                        source: buttonSources[index] ?? 'contact.name',
                      })),
                    }
                  : {}),
              },
        variables: Array.from({ length: count }, (_, index) => variables[index] ?? 'contact.name'),
        ...(type === 'regular'
          ? {
              audience:
                audience === 'all'
                  ? { type: 'all' }
                  : { type: 'groups', group_ids: groupIds.map(Number) },
              send_now: when === 'now',
              ...(when === 'later' && scheduledAt
                ? { scheduled_at: new Date(scheduledAt).toISOString() }
                : {}),
            }
          : {}),
        ...(type === 'bot' ? { keywords } : {}),
      };
      return api.op.post<CampaignResponse>('createCampaign', request);
    },
    onSuccess: () => {
      setName('');
      setText('');
      setKeywords('');
      onCreated();
    },
  });
  return (
    <Section id="new-campaign" title="New campaign" onSubmit={() => create.mutate()}>
      <TextInput
        label="Campaign name"
        required
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
      />
      <Stack gap={4}>
        <SegmentedControl
          aria-label="Campaign type"
          data={CAMPAIGN_KINDS}
          value={type}
          onChange={(value) => setType(value as CampaignType)}
        />
        <Text size="xs" c="dimmed">
          {KIND_HINTS[type]}
        </Text>
      </Stack>
      {type === 'bot' && (
        <TextInput
          label="Trigger keywords"
          description="Separated by commas"
          required
          value={keywords}
          onChange={(event) => setKeywords(event.currentTarget.value)}
        />
      )}
      <SegmentedControl
        aria-label="Message"
        data={[
          { value: 'text', label: 'Text message' },
          { value: 'template', label: 'Template' },
        ]}
        value={kind}
        onChange={(value) => setKind(value === 'template' ? 'template' : 'text')}
      />
      {kind === 'text' ? (
        <Textarea
          label="Message text"
          description="{{1}}, {{2}}… are filled per contact from the variables below."
          required
          autosize
          minRows={2}
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
        />
      ) : (
        <Select
          label="Approved template"
          placeholder={templates.data?.templates.length === 0 ? 'No approved templates' : 'Choose'}
          data={(templates.data?.templates ?? []).map((t) => ({
            value: String(t.id),
            label: `${t.template_name} (${t.template_language})`,
          }))}
          value={templateId}
          onChange={setTemplateId}
        />
      )}
      {kind === 'template' && template && (
        <Text size="sm" c="dimmed">
          {templateBody(template)}
        </Text>
      )}
      {slots.mediaHeader && (
        <TextInput
          label={`Header ${slots.mediaHeader} link`}
          description={`The ${slots.mediaHeader} every recipient gets, at an https address`}
          required
          type="url"
          value={mediaLink}
          onChange={(event) => setMediaLink(event.currentTarget.value)}
        />
      )}
      {slots.headerVariable && (
        <SourcePicker
          label="Header {{1}}"
          value={headerSource}
          onChange={setHeaderSource}
          withData={type === 'api'}
        />
      )}
      <VariableMapping
        count={count}
        values={variables}
        onChange={setVariables}
        withData={type === 'api'}
      />
      {slots.urlButtons.map(({ index, text: buttonText }) => (
        <SourcePicker
          key={index}
          label={`Button “${buttonText}” {{1}}`}
          value={buttonSources[index] ?? 'contact.name'}
          onChange={(value) => setButtonSources({ ...buttonSources, [index]: value })}
          withData={type === 'api'}
        />
      ))}
      {type === 'regular' && (
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Stack gap="xs">
            <SegmentedControl
              aria-label="Audience"
              data={[
                { value: 'all', label: 'All contacts' },
                { value: 'groups', label: 'Groups' },
              ]}
              value={audience}
              onChange={(value) => setAudience(value === 'groups' ? 'groups' : 'all')}
            />
            {audience === 'groups' && (
              <MultiSelect
                label="Audience groups"
                placeholder="Choose groups"
                data={(groups.data?.groups ?? []).map((group) => ({
                  value: String(group.id),
                  label: group.name,
                }))}
                value={groupIds}
                onChange={setGroupIds}
              />
            )}
          </Stack>
          <Stack gap="xs">
            <SegmentedControl
              aria-label="When"
              data={[
                { value: 'now', label: 'Send now' },
                { value: 'later', label: 'Schedule' },
                { value: 'draft', label: 'Keep as draft' },
              ]}
              value={when}
              onChange={(value) => setWhen(value as 'now' | 'later' | 'draft')}
            />
            {when === 'later' && (
              <TextInput
                type="datetime-local"
                label="Send at"
                required
                value={scheduledAt}
                onChange={(event) => setScheduledAt(event.currentTarget.value)}
              />
            )}
          </Stack>
        </SimpleGrid>
      )}
      <ErrorAlert error={create.error} title="The campaign was not created" />
      <Group>
        <Button type="submit" loading={create.isPending}>
          {type !== 'regular'
            ? 'Create campaign'
            : when === 'now'
              ? 'Create and send'
              : when === 'later'
                ? 'Schedule'
                : 'Save draft'}
        </Button>
      </Group>
    </Section>
  );
}

function CampaignProgress({ campaign }: { campaign: CampaignView }) {
  const { total_contacts: total, sent, delivered, read, failed } = campaign;
  const handled = Math.min(total, sent + failed);
  const percent = total
    ? Math.round((handled / total) * 100)
    : campaign.status === 'completed'
      ? 100
      : 0;
  return (
    <Stack gap={2} miw={220}>
      <Progress value={percent} aria-label={`Progress of ${campaign.name}`} />
      <Text size="xs" data-testid="campaign-progress">
        {percent}% · sent {sent}, delivered {delivered}, read {read}, failed {failed} of {total}
      </Text>
    </Stack>
  );
}

function Trigger({
  campaign,
  groupNames,
}: {
  campaign: CampaignView;
  groupNames: Map<number, string>;
}) {
  if (campaign.type === 'bot')
    return <Text size="xs">Keywords: {campaign.keywords?.join(', ')}</Text>;
  if (campaign.type === 'api') {
    const paths = placeholderSources(campaign).flatMap((source) =>
      'data' in source ? [source.data] : [],
    );
    return (
      <Stack gap={0}>
        <Text size="xs">POST /api/svc/sendcampaigns with campaign_id {campaign.id}</Text>
        {paths.length > 0 && (
          <Text size="xs" c="dimmed">
            data: {paths.join(', ')}
          </Text>
        )}
      </Stack>
    );
  }
  if (campaign.scheduled_at && campaign.status === 'scheduled') {
    return <Text size="xs">Scheduled for {formatTime(campaign.scheduled_at)}</Text>;
  }
  const audience = campaign.audience;
  return (
    <Text size="xs">
      {audience?.type === 'groups'
        ? `Groups: ${audience.group_ids.map((id) => groupNames.get(id) ?? `#${id}`).join(', ')}`
        : audience?.type === 'contacts'
          ? `${audience.contact_ids.length} contacts`
          : 'All contacts'}
    </Text>
  );
}

export function CampaignsPage() {
  const queryClient = useQueryClient();
  const fallbackPoll = useFallbackPoll();
  const campaigns = useQuery({
    queryKey: ['campaigns'],
    queryFn: () => api.op.get<CampaignsResponse>('getCampaigns', { per_page: 100 }),
    // The live stream moves the counters (campaign_progress); this reads them again only while
    // the stream is down.
    refetchInterval: (query) =>
      query.state.data?.campaigns.some(stillMoving) ? fallbackPoll : false,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['campaigns'] });
  const action = useMutation({
    mutationFn: ({
      kind,
      campaign,
    }: {
      kind: 'start' | 'cancel' | 'delete';
      campaign: CampaignView;
    }) => {
      if (kind === 'delete') return api.op.post('deleteCampaign', { id: campaign.id });
      return api.op.post(kind === 'start' ? 'startCampaign' : 'cancelCampaign', {
        id: campaign.id,
      });
    },
    onSettled: refresh,
  });
  const list = [...(campaigns.data?.campaigns ?? [])].sort((a, b) => b.id - a.id);
  const groups = useQuery({
    queryKey: ['groups'],
    queryFn: () => api.op.get<GroupsResponse>('getGroups', { per_page: 500 }),
  });
  const groupNames = new Map((groups.data?.groups ?? []).map((group) => [group.id, group.name]));
  return (
    <Stack>
      <Title order={1}>Campaigns</Title>
      <CreateCampaign onCreated={() => void refresh()} />
      <ErrorAlert error={action.error} />
      <section aria-labelledby="campaign-list">
        <Title order={2} size="h4" id="campaign-list" mb="xs">
          Your campaigns
        </Title>
        <ErrorAlert error={campaigns.error} />
        {campaigns.data && list.length === 0 && <Text c="dimmed">No campaigns yet.</Text>}
        {list.length > 0 && (
          <Table.ScrollContainer minWidth={900}>
            <ListTable
              label="Campaigns"
              headings={['Name', 'Type', 'Status', 'Audience or trigger', 'Progress', 'Actions']}
            >
              {list.map((campaign) => (
                <Table.Tr key={campaign.id} data-testid="campaign-row">
                  <Table.Td>{campaign.name}</Table.Td>
                  <Table.Td>{campaign.type}</Table.Td>
                  <Table.Td>
                    <Badge color={STATUS_COLORS[campaign.status]}>{campaign.status}</Badge>
                  </Table.Td>
                  <Table.Td>
                    <Trigger campaign={campaign} groupNames={groupNames} />
                  </Table.Td>
                  <Table.Td>
                    {campaign.type === 'regular' ? <CampaignProgress campaign={campaign} /> : '—'}
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap">
                      {campaign.type === 'regular' &&
                        (campaign.status === 'draft' || campaign.status === 'scheduled') && (
                          <Button
                            size="xs"
                            variant="default"
                            aria-label={`Start ${campaign.name} now`}
                            onClick={() => action.mutate({ kind: 'start', campaign })}
                          >
                            Start
                          </Button>
                        )}
                      {['draft', 'scheduled', 'started'].includes(campaign.status) && (
                        <Button
                          size="xs"
                          variant="default"
                          aria-label={`Cancel ${campaign.name}`}
                          onClick={() => action.mutate({ kind: 'cancel', campaign })}
                        >
                          Cancel
                        </Button>
                      )}
                      {campaign.status !== 'started' && campaign.status !== 'scheduled' && (
                        <ConfirmButton
                          label={`Delete ${campaign.name}`}
                          question={`Delete the campaign “${campaign.name}”?`}
                          onConfirm={() => action.mutate({ kind: 'delete', campaign })}
                        >
                          Delete
                        </ConfirmButton>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </ListTable>
          </Table.ScrollContainer>
        )}
      </section>
    </Stack>
  );
}
