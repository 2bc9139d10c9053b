import { useEffect, useRef, useState, type FormEvent } from 'react';
import {
  Alert,
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
  Conversation,
  ConversationsResponse,
  MessageView,
  MessagesResponse,
  SendMessageResponse,
  ContactBotsResponse,
  TemplatesResponse,
} from '@switchboard/contracts';
import { api, errorText } from '../api';
import { formatTime } from '../format';

/**
 * Until the console's event stream is served, the inbox reads the conversations and the open
 * thread again every few seconds; the stream will only invalidate these same queries.
 */
const CONVERSATIONS_POLL_MS = 3000;
const THREAD_POLL_MS = 1500;
const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

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

function MessageBubble({ message }: { message: MessageView }) {
  const outbound = message.direction === 'outbound';
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
        <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
          {message.message}
        </Text>
        <Group gap={6} justify="flex-end">
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

/** Inside the 24-hour customer service window a free-form reply may go; after it, a template. */
function windowIsOpen(messages: MessageView[]): boolean {
  const lastInbound = messages.filter((message) => message.direction === 'inbound').at(-1);
  return (
    !!lastInbound && Date.now() - new Date(lastInbound.created_at).getTime() < SERVICE_WINDOW_MS
  );
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
      {send.isError && (
        <Alert color="red" role="alert">
          {errorText(send.error)}
        </Alert>
      )}
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
        {send.isError && (
          <Alert color="red" role="alert" title="Not sent">
            {errorText(send.error)}
          </Alert>
        )}
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
  const messages = useQuery({
    queryKey: ['messages', conversation.contact_id],
    queryFn: () =>
      api.op.get<MessagesResponse>('getMessages', {
        contact_id: conversation.contact_id,
        per_page: 50,
      }),
    refetchInterval: THREAD_POLL_MS,
  });
  const ordered = [...(messages.data?.messages ?? [])].sort((a, b) => a.message_id - b.message_id);
  const lastId = ordered.at(-1)?.message_id;
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' });
  }, [lastId]);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ['messages', conversation.contact_id] });
    void queryClient.invalidateQueries({ queryKey: ['conversations'] });
  };
  const open = windowIsOpen(ordered);
  return (
    <Stack h="100%" gap="sm">
      <Group justify="space-between">
        <div>
          <Title order={2} size="h4">
            {conversation.contact_name || conversation.phone}
          </Title>
          <Text size="sm" c="dimmed">
            +{conversation.phone}
          </Text>
        </div>
        <Group gap="xs">
          <HandBack contactId={conversation.contact_id} />
          <Badge color={open ? 'teal.9' : 'gray.7'}>
            {open ? '24-hour window open' : 'window closed'}
          </Badge>
        </Group>
      </Group>
      <ScrollArea h={420} type="auto" aria-label="Messages" tabIndex={0}>
        <Stack gap="xs" p="xs" role="log" aria-live="polite">
          {messages.isPending && <Text size="sm">Loading messages…</Text>}
          {messages.isError && (
            <Alert color="red" role="alert">
              {errorText(messages.error)}
            </Alert>
          )}
          {ordered.map((message) => (
            <MessageBubble key={message.message_id} message={message} />
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
          {/* A business may still write first; the provider then decides. */}
          {!open && <ReplyBox phone={conversation.phone} onSent={refresh} />}
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
        {send.isError && (
          <Alert color="red" role="alert">
            {errorText(send.error)}
          </Alert>
        )}
        <Button type="submit" size="xs" loading={send.isPending}>
          Send message
        </Button>
      </Stack>
    </form>
  );
}

const FILTERS = [
  { value: 'all', label: 'All' },
  { value: 'unread', label: 'Unread' },
];

export function InboxPage() {
  const [params, setParams] = useSearchParams();
  const selected = Number(params.get('contact')) || null;
  const filter = params.get('filter') ?? 'all';
  const [pendingPhone, setPendingPhone] = useState<string | null>(null);
  const conversations = useQuery({
    queryKey: ['conversations'],
    queryFn: () => api.op.get<ConversationsResponse>('getConversations', { per_page: 100 }),
    refetchInterval: CONVERSATIONS_POLL_MS,
  });
  const all = conversations.data?.conversations ?? [];
  const shown = filter === 'unread' ? all.filter((c) => c.unread_count > 0) : all;
  const choose = (contactId: number) => {
    const next = new URLSearchParams(params);
    next.set('contact', String(contactId));
    setParams(next);
  };
  // A conversation started here opens once it shows in the list.
  useEffect(() => {
    if (!pendingPhone) return;
    const started = all.find((c) => c.phone === pendingPhone);
    if (started) {
      setPendingPhone(null);
      choose(started.contact_id);
    }
  });
  const current = all.find((c) => c.contact_id === selected);
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
              data={FILTERS}
              value={filter}
              aria-label="Show"
              onChange={(value) => {
                const next = new URLSearchParams(params);
                next.set('filter', value);
                setParams(next);
              }}
            />
            {conversations.isError && (
              <Alert color="red" role="alert">
                {errorText(conversations.error)}
              </Alert>
            )}
            {conversations.data && shown.length === 0 && (
              <Text size="sm" c="dimmed">
                {filter === 'unread' ? 'Nothing unread.' : 'No conversations yet.'}
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
