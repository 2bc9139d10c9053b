import { useEffect, useRef, useState, type FormEvent } from 'react';
import {
  Badge,
  Button,
  Group,
  Paper,
  ScrollArea,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  Textarea,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import type {
  AgentsResponse,
  Conversation,
  ConversationStateResponse,
  ConversationStatus,
  ConversationsResponse,
  GetConversationsQuery,
  MarkMessageReadResponse,
  MessageView,
  MessagesResponse,
  SendMessageResponse,
  ContactBotsResponse,
  TemplatesResponse,
} from '@switchboard/contracts';
import { api, errorText } from '../api';
import { formatTime } from '../format';
import { useFallbackPoll } from '../live';
import { useSession } from '../session';
import { ErrorAlert } from '../ErrorAlert';

/**
 * The inbox's lists and the open thread are kept fresh by the live event stream (which
 * invalidates their queries); they poll, slowly, only while the stream is down. A file the
 * contact sent is fetched from the provider after its message is stored, with no event of its
 * own: while one is still pending the thread reads again every few seconds.
 */
const PENDING_MEDIA_POLL_MS = 2000;
const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The organization's users by id, for "sent by" and the assignee. Every role may list them. */
function useAgents() {
  return useQuery({
    queryKey: ['agents'],
    queryFn: () => api.op.get<AgentsResponse>('getAgents'),
    staleTime: 60_000,
  });
}

function useAgentNames(): (id: number | null) => string | null {
  const agents = useAgents();
  const { user } = useSession();
  return (id) => {
    if (id === null) return null;
    if (id === user?.id) return 'you';
    return agents.data?.agents.find((agent) => agent.id === id)?.name ?? `user #${id}`;
  };
}

/** WhatsApp's ticks: one grey tick sent, two delivered, two blue read. */
function StatusTicks({ message }: { message: MessageView }) {
  if (message.direction === 'inbound') return null;
  const ticks: Record<string, { mark: string; label: string; color: string }> = {
    pending: { mark: '◷', label: 'sending', color: 'dimmed' },
    sent: { mark: '✓', label: 'sent', color: 'dimmed' },
    delivered: { mark: '✓✓', label: 'delivered', color: 'dimmed' },
    read: { mark: '✓✓', label: 'read', color: 'blue' },
    failed: { mark: '✕', label: 'failed', color: 'red' },
  };
  const tick = ticks[message.status] ?? { mark: '', label: message.status, color: 'dimmed' };
  return (
    <Text
      component="span"
      size="xs"
      c={tick.color}
      data-testid="message-status"
      data-status={message.status}
      title={tick.label}
    >
      <span aria-hidden="true">{tick.mark} </span>
      {tick.label}
    </Text>
  );
}

/** Same origin, whatever host the message's own `media.url` names: the CSP allows img 'self'. */
const mediaPath = (message: MessageView) => `/api/svc/getMedia?media_id=${message.message_id}`;

const MEDIA_UNAVAILABLE: Record<string, string> = {
  pending: 'being fetched…',
  too_large: 'too large to keep',
  failed: 'could not be fetched from WhatsApp',
  expired: 'no longer kept',
};

/** A file the contact sent: an image shown, any other file as a download. */
function MessageMedia({ message }: { message: MessageView }) {
  const media = message.media;
  if (!media) return null;
  const kind = media.type === 'document' ? 'Document' : media.type;
  if (media.status !== 'available') {
    return (
      <Text size="xs" c="dimmed" data-testid="media-unavailable">
        {kind} {media.filename ?? ''} {MEDIA_UNAVAILABLE[media.status] ?? media.status}
      </Text>
    );
  }
  if (media.type === 'image' || media.type === 'sticker') {
    return (
      <a href={mediaPath(message)} target="_blank" rel="noreferrer">
        <img
          src={mediaPath(message)}
          alt={`${kind} from the contact`}
          style={{ maxWidth: '100%', maxHeight: 240, display: 'block', borderRadius: 4 }}
          data-testid="message-image"
        />
      </a>
    );
  }
  const name = media.filename ?? `${media.type} (${media.mime_type})`;
  return (
    <Text size="sm">
      <a href={mediaPath(message)} download={media.filename ?? true} data-testid="message-file">
        Download {name}
      </a>
      {media.size !== null && ` · ${Math.ceil(media.size / 1024)} KB`}
    </Text>
  );
}

function MessageBubble({
  message,
  sentBy,
}: {
  message: MessageView;
  sentBy: (id: number | null) => string | null;
}) {
  const outbound = message.direction === 'outbound';
  const agent = sentBy(message.sent_by_agent_id);
  return (
    <Group justify={outbound ? 'flex-end' : 'flex-start'}>
      <Paper
        p="xs"
        radius="md"
        maw="75%"
        bg={outbound ? 'blue.0' : 'gray.0'}
        withBorder
        data-testid="message"
      >
        <MessageMedia message={message} />
        <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
          {message.message}
        </Text>
        <Group gap={6} justify="flex-end">
          {agent && (
            <Text size="xs" c="dimmed" component="span" data-testid="sent-by">
              Sent by {agent} ·
            </Text>
          )}
          <Text size="xs" c="dimmed" component="span">
            {formatTime(message.created_at)}
          </Text>
          <StatusTicks message={message} />
        </Group>
        {message.status === 'failed' && message.error && (
          <Text size="xs" c="red" role="note">
            {message.error}
          </Text>
        )}
      </Paper>
    </Group>
  );
}

/**
 * Inside the 24-hour customer service window a free-form reply may go; after it, a template
 * (the server refuses such a send with `outside_service_window` anyway).
 */
function windowIsOpen(conversation: Conversation, messages: MessageView[]): boolean {
  const lastInbound =
    conversation.last_inbound_at ??
    messages.filter((message) => message.direction === 'inbound').at(-1)?.created_at;
  return !!lastInbound && Date.now() - new Date(lastInbound).getTime() < SERVICE_WINDOW_MS;
}

const STATUS_LABELS: Record<ConversationStatus, { label: string; color: string }> = {
  open: { label: 'open', color: 'teal.9' },
  needs_human: { label: 'needs human', color: 'orange.9' },
  closed: { label: 'closed', color: 'gray.7' },
};

/** Who has the conversation (me, a colleague, nobody) and whether it is open or closed. */
function InboxControls({ conversation }: { conversation: Conversation }) {
  const queryClient = useQueryClient();
  const { user } = useSession();
  const agents = useAgents();
  const afterChange = (answer: ConversationStateResponse) => {
    // The list shows the new state at once; the live event refreshes it anyway.
    queryClient.setQueriesData<ConversationsResponse>({ queryKey: ['conversations'] }, (list) =>
      list?.conversations
        ? {
            ...list,
            conversations: list.conversations.map((c) =>
              c.contact_id === conversation.contact_id ? { ...c, ...answer.conversation } : c,
            ),
          }
        : list,
    );
    void queryClient.invalidateQueries({ queryKey: ['conversations'] });
  };
  const assign = useMutation({
    mutationFn: (agentId: number | null) =>
      api.op.post<ConversationStateResponse>('assignConversation', {
        contact_id: conversation.contact_id,
        agent_id: agentId,
      }),
    onSuccess: afterChange,
  });
  const setStatus = useMutation({
    mutationFn: (status: ConversationStatus) =>
      api.op.post<ConversationStateResponse>('setConversationStatus', {
        contact_id: conversation.contact_id,
        status,
      }),
    onSuccess: afterChange,
  });
  const choices = [
    { value: 'none', label: 'Nobody' },
    ...(agents.data?.agents ?? [])
      .filter((agent) => agent.active || agent.id === conversation.assigned_agent_id)
      .map((agent) => ({
        value: String(agent.id),
        label: agent.id === user?.id ? `${agent.name} (me)` : agent.name,
      })),
  ];
  const closed = conversation.status === 'closed';
  const mine = conversation.assigned_agent_id === user?.id;
  const error = assign.error ?? setStatus.error;
  return (
    <Stack gap={4}>
      <Group gap="xs" align="flex-end">
        <Select
          size="xs"
          w={190}
          label="Assigned to"
          data={choices}
          value={conversation.assigned_agent_id ? String(conversation.assigned_agent_id) : 'none'}
          allowDeselect={false}
          onChange={(value) => assign.mutate(value && value !== 'none' ? Number(value) : null)}
          disabled={assign.isPending}
        />
        {!mine && user && (
          <Button
            size="xs"
            variant="default"
            loading={assign.isPending}
            onClick={() => assign.mutate(user.id)}
          >
            Assign to me
          </Button>
        )}
        <Button
          size="xs"
          variant={closed ? 'filled' : 'default'}
          loading={setStatus.isPending}
          onClick={() => setStatus.mutate(closed ? 'open' : 'closed')}
        >
          {closed ? 'Reopen' : 'Close conversation'}
        </Button>
      </Group>
      {error && (
        <Text size="xs" c="red.9" role="alert">
          {errorText(error)}
        </Text>
      )}
    </Stack>
  );
}

/**
 * Opening a conversation (and each new message while it is open) marks the contact's last
 * message read: they see blue ticks, and the unread count drops for every colleague.
 */
function useMarkRead(conversation: Conversation, messages: MessageView[]) {
  const queryClient = useQueryClient();
  const marked = useRef<number | null>(null);
  const lastInbound = messages.filter((message) => message.direction === 'inbound').at(-1);
  const mark = useMutation({
    mutationFn: (messageId: number) =>
      api.op.post<MarkMessageReadResponse>('markMessageRead', { message_id: messageId }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['conversations'] }),
  });
  const { mutate } = mark;
  const unread = conversation.unread_count;
  useEffect(() => {
    if (!lastInbound?.message_wamid || unread === 0) return;
    if (marked.current !== null && marked.current >= lastInbound.message_id) return;
    marked.current = lastInbound.message_id;
    mutate(lastInbound.message_id);
  }, [lastInbound?.message_id, lastInbound?.message_wamid, unread, mutate]);
  return mark;
}

function TemplatePicker({ phone, onSent }: { phone: string; onSent: () => void }) {
  const [choice, setChoice] = useState<string | null>(null);
  const templates = useQuery({
    queryKey: ['templates', 'APPROVED'],
    queryFn: () => api.op.get<TemplatesResponse>('getTemplates', { status: 'APPROVED' }),
  });
  const send = useMutation({
    mutationFn: () => {
      const template = templates.data?.templates.find((t) => String(t.id) === choice);
      if (!template) throw new Error('Choose a template');
      return api.op.post<SendMessageResponse>('sendtemplatemessage', {
        phone,
        template_name: template.template_name,
        template_language: template.template_language,
      });
    },
    onSuccess: onSent,
  });
  return (
    <Stack gap="xs">
      <Text size="sm">
        The 24-hour window since the customer last wrote is closed: only an approved template can be
        sent.
      </Text>
      <Group align="flex-end">
        <Select
          label="Template"
          placeholder={templates.data?.templates.length === 0 ? 'No approved templates' : 'Choose'}
          data={(templates.data?.templates ?? []).map((t) => ({
            value: String(t.id),
            label: `${t.template_name} (${t.template_language})`,
          }))}
          value={choice}
          onChange={setChoice}
        />
        <Button onClick={() => send.mutate()} loading={send.isPending} disabled={!choice}>
          Send template
        </Button>
      </Group>
      <ErrorAlert error={send.error} />
    </Stack>
  );
}

/** Text, and optionally up to 3 reply buttons and an image (by URL), as one message. */
function ReplyBox({ phone, onSent }: { phone: string; onSent: () => void }) {
  const [text, setText] = useState('');
  const [extras, setExtras] = useState(false);
  const [buttons, setButtons] = useState('');
  const [image, setImage] = useState('');
  const buttonTitles = buttons
    .split(',')
    .map((title) => title.trim())
    .filter(Boolean);
  const send = useMutation({
    mutationFn: () =>
      api.op.post<SendMessageResponse>('sendMessageToPhoneNumber', {
        phone,
        message: text,
        ...(buttonTitles.length ? { buttons: buttonTitles } : {}),
        ...(image.trim() ? { image: image.trim() } : {}),
      }),
    onSuccess: () => {
      setText('');
      setButtons('');
      setImage('');
      onSent();
    },
    onError: onSent,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim()) send.mutate();
  };
  return (
    <form onSubmit={submit}>
      <Stack gap="xs">
        <Textarea
          label="Reply"
          placeholder="Type a message"
          autosize
          minRows={2}
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
          onKeyDown={(event) => {
            // Enter sends, Shift+Enter makes a new line, as in every chat.
            if (event.key === 'Enter' && !event.shiftKey) {
              event.preventDefault();
              if (text.trim()) send.mutate();
            }
          }}
        />
        {extras && (
          <Group grow align="flex-start">
            <TextInput
              label="Reply buttons"
              description="Up to 3 titles, separated by commas"
              value={buttons}
              onChange={(event) => setButtons(event.currentTarget.value)}
            />
            <TextInput
              label="Image URL"
              description="Sent with the text as its caption"
              value={image}
              onChange={(event) => setImage(event.currentTarget.value)}
            />
          </Group>
        )}
        <ErrorAlert error={send.error} title="Not sent" />
        <Group justify="space-between">
          <Button
            variant="subtle"
            size="xs"
            onClick={() => setExtras(!extras)}
            aria-expanded={extras}
          >
            {extras ? 'Text only' : 'Add buttons or an image'}
          </Button>
          <Button type="submit" loading={send.isPending} disabled={!text.trim()}>
            Send
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * A flow's hand-over (or a person answering) turns the bots off for a customer; this turns
 * automated replies, flows and the AI bot back on for them.
 */
function HandBack({ contactId }: { contactId: number }) {
  const handBack = useMutation({
    mutationFn: () =>
      api.op.post<ContactBotsResponse>('updateContactBots', {
        contact_id: contactId,
        enabled: true,
      }),
  });
  return (
    <Group gap="xs">
      <Button
        size="xs"
        variant="default"
        loading={handBack.isPending}
        onClick={() => handBack.mutate()}
      >
        Hand back to the bots
      </Button>
      {handBack.isSuccess && (
        <Text size="xs" role="status">
          The bots answer this customer again.
        </Text>
      )}
      {handBack.isError && (
        <Text size="xs" c="red.9" role="alert">
          {errorText(handBack.error)}
        </Text>
      )}
    </Group>
  );
}

function Thread({ conversation }: { conversation: Conversation }) {
  const queryClient = useQueryClient();
  const [forceTemplate, setForceTemplate] = useState(false);
  const end = useRef<HTMLDivElement>(null);
  const fallbackPoll = useFallbackPoll();
  const sentBy = useAgentNames();
  const messages = useQuery({
    queryKey: ['messages', conversation.contact_id],
    queryFn: () =>
      api.op.get<MessagesResponse>('getMessages', {
        contact_id: conversation.contact_id,
        per_page: 50,
      }),
    refetchInterval: (query) =>
      query.state.data?.messages.some((message) => message.media?.status === 'pending')
        ? PENDING_MEDIA_POLL_MS
        : fallbackPoll,
  });
  const ordered = [...(messages.data?.messages ?? [])].sort((a, b) => a.message_id - b.message_id);
  const markRead = useMarkRead(conversation, ordered);
  const lastId = ordered.at(-1)?.message_id;
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' });
  }, [lastId]);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ['messages', conversation.contact_id] });
    void queryClient.invalidateQueries({ queryKey: ['conversations'] });
  };
  const open = windowIsOpen(conversation, ordered);
  const neverWrote =
    conversation.last_inbound_at === null &&
    !ordered.some((message) => message.direction === 'inbound');
  const status = STATUS_LABELS[conversation.status];
  return (
    <Stack h="100%" gap="sm">
      <Group justify="space-between" align="flex-start">
        <div>
          <Title order={2} size="h4">
            {conversation.contact_name || conversation.phone}
          </Title>
          <Text size="sm" c="dimmed">
            +{conversation.phone}
          </Text>
          <Group gap={6} mt={4}>
            <Badge color={status.color} data-testid="conversation-status">
              {status.label}
            </Badge>
            <Badge color={open ? 'teal.9' : 'gray.7'}>
              {open ? '24-hour window open' : 'window closed'}
            </Badge>
          </Group>
        </div>
        <Stack gap={6} align="flex-end">
          <InboxControls conversation={conversation} />
          <HandBack contactId={conversation.contact_id} />
        </Stack>
      </Group>
      {markRead.isError && (
        <Text size="xs" c="red.9" role="alert">
          Could not mark the messages read: {errorText(markRead.error)}
        </Text>
      )}
      <ScrollArea h={420} type="auto" aria-label="Messages" tabIndex={0}>
        <Stack gap="xs" p="xs" role="log" aria-live="polite">
          {messages.isPending && <Text size="sm">Loading messages…</Text>}
          <ErrorAlert error={messages.error} />
          {ordered.map((message) => (
            <MessageBubble key={message.message_id} message={message} sentBy={sentBy} />
          ))}
          <div ref={end} />
        </Stack>
      </ScrollArea>
      {open && !forceTemplate ? (
        <>
          <ReplyBox phone={conversation.phone} onSent={refresh} />
          <Button variant="subtle" size="xs" onClick={() => setForceTemplate(true)}>
            Send a template instead
          </Button>
        </>
      ) : (
        <>
          <TemplatePicker phone={conversation.phone} onSent={refresh} />
          {/* To a contact who never wrote, a free-form message is left to the provider; once
              they have written, the server refuses one after 24 hours (outside_service_window). */}
          {!open && neverWrote && <ReplyBox phone={conversation.phone} onSent={refresh} />}
          {forceTemplate && (
            <Button variant="subtle" size="xs" onClick={() => setForceTemplate(false)}>
              Back to a free-form reply
            </Button>
          )}
        </>
      )}
    </Stack>
  );
}

function NewConversation({ onStarted }: { onStarted: (phone: string) => void }) {
  const [phone, setPhone] = useState('');
  const [text, setText] = useState('');
  const send = useMutation({
    mutationFn: () =>
      api.op.post<SendMessageResponse>('sendMessageToPhoneNumber', {
        phone: phone.replace(/[^\d]/g, ''),
        message: text,
      }),
    onSuccess: () => {
      onStarted(phone.replace(/[^\d]/g, ''));
      setPhone('');
      setText('');
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate();
  };
  return (
    <form onSubmit={submit} aria-labelledby="new-conversation">
      <Stack gap="xs">
        <Title order={2} size="h5" id="new-conversation">
          New message
        </Title>
        <TextInput
          label="Phone number"
          placeholder="393471234567"
          required
          value={phone}
          onChange={(event) => setPhone(event.currentTarget.value)}
        />
        <TextInput
          label="Message"
          required
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
        />
        <ErrorAlert error={send.error} />
        <Button type="submit" size="xs" loading={send.isPending}>
          Send message
        </Button>
      </Stack>
    </form>
  );
}

/** Each filter of the list, as getConversations' own filters. */
const FILTERS: {
  value: string;
  label: string;
  query: Partial<GetConversationsQuery>;
  empty: string;
}[] = [
  { value: 'all', label: 'All', query: {}, empty: 'No conversations yet.' },
  { value: 'mine', label: 'Mine', query: { assignee: 'me' }, empty: 'Nothing assigned to you.' },
  {
    value: 'unassigned',
    label: 'Unassigned',
    query: { assignee: 'none' },
    empty: 'Every conversation has someone.',
  },
  {
    value: 'needs_human',
    label: 'Needs human',
    query: { status: 'needs_human' },
    empty: 'No conversation waits for a person.',
  },
  { value: 'unread', label: 'Unread', query: { unread: true }, empty: 'Nothing unread.' },
  {
    value: 'closed',
    label: 'Closed',
    query: { status: 'closed' },
    empty: 'No closed conversations.',
  },
];

function useConversations(filter: (typeof FILTERS)[number], enabled = true) {
  const fallbackPoll = useFallbackPoll();
  return useQuery({
    queryKey: ['conversations', filter.value],
    queryFn: () =>
      api.op.get<ConversationsResponse>('getConversations', {
        per_page: 100,
        ...(filter.query as Record<string, string | boolean>),
      }),
    refetchInterval: fallbackPoll,
    enabled,
  });
}

export function InboxPage() {
  const [params, setParams] = useSearchParams();
  const selected = Number(params.get('contact')) || null;
  const filter = FILTERS.find((f) => f.value === params.get('filter')) ?? FILTERS[0]!;
  const [pendingPhone, setPendingPhone] = useState<string | null>(null);
  const sentBy = useAgentNames();
  const conversations = useConversations(filter);
  const shown = conversations.data?.conversations ?? [];
  // The open conversation may leave the filtered list (read, closed, given to a colleague):
  // the thread stays, read from the whole list.
  const inShown = shown.find((c) => c.contact_id === selected);
  const everyone = useConversations(
    FILTERS[0]!,
    filter.value !== 'all' && (selected !== null || pendingPhone !== null) && !inShown,
  );
  const all = filter.value === 'all' ? shown : (everyone.data?.conversations ?? []);
  const choose = (contactId: number) => {
    const next = new URLSearchParams(params);
    next.set('contact', String(contactId));
    setParams(next);
  };
  // A conversation started here opens once it shows in the list.
  useEffect(() => {
    if (!pendingPhone) return;
    const started = [...shown, ...all].find((c) => c.phone === pendingPhone);
    if (started) {
      setPendingPhone(null);
      choose(started.contact_id);
    }
  });
  const current = inShown ?? all.find((c) => c.contact_id === selected);
  return (
    <Stack>
      <Title order={1}>Inbox</Title>
      <Group align="flex-start" wrap="nowrap" gap="md">
        <Paper withBorder p="sm" w={320} component="section" aria-labelledby="conversations">
          <Stack gap="xs">
            <Title order={2} size="h5" id="conversations">
              Conversations
            </Title>
            <SegmentedControl
              size="xs"
              orientation="vertical"
              fullWidth
              data={FILTERS.map(({ value, label }) => ({ value, label }))}
              value={filter.value}
              aria-label="Show"
              onChange={(value) => {
                const next = new URLSearchParams(params);
                next.set('filter', value);
                setParams(next);
              }}
            />
            <ErrorAlert error={conversations.error} />
            {conversations.data && shown.length === 0 && (
              <Text size="sm" c="dimmed">
                {filter.empty}
              </Text>
            )}
            <Stack gap={4} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
              {shown.map((conversation) => (
                <li key={conversation.contact_id}>
                  <UnstyledButton
                    w="100%"
                    p="xs"
                    bg={conversation.contact_id === selected ? 'blue.0' : undefined}
                    aria-current={conversation.contact_id === selected ? 'true' : undefined}
                    onClick={() => choose(conversation.contact_id)}
                    data-testid="conversation"
                  >
                    <Group justify="space-between" wrap="nowrap">
                      <Text size="sm" fw={600} truncate>
                        {conversation.contact_name || `+${conversation.phone}`}
                      </Text>
                      {conversation.unread_count > 0 && (
                        <Badge size="sm" aria-label={`${conversation.unread_count} unread`}>
                          {conversation.unread_count}
                        </Badge>
                      )}
                    </Group>
                    <Text size="xs" c="dimmed" truncate>
                      {conversation.last_message.message}
                    </Text>
                    <Group gap={4} mt={2}>
                      {conversation.status !== 'open' && (
                        <Badge size="xs" color={STATUS_LABELS[conversation.status].color}>
                          {STATUS_LABELS[conversation.status].label}
                        </Badge>
                      )}
                      <Text size="xs" c="dimmed" component="span" data-testid="assignee">
                        {conversation.assigned_agent_id
                          ? `Assigned to ${sentBy(conversation.assigned_agent_id)}`
                          : 'Unassigned'}
                      </Text>
                    </Group>
                  </UnstyledButton>
                </li>
              ))}
            </Stack>
            <NewConversation onStarted={setPendingPhone} />
          </Stack>
        </Paper>
        <Paper withBorder p="sm" style={{ flex: 1 }} component="section" aria-label="Conversation">
          {current ? (
            <Thread key={current.contact_id} conversation={current} />
          ) : (
            <Text c="dimmed">Choose a conversation, or send a new message.</Text>
          )}
        </Paper>
      </Group>
    </Stack>
  );
}
