import { useState } from 'react';
import {
  Badge,
  Button,
  FileButton,
  Group,
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
  TEMPLATE_CATEGORIES,
  type CreateTemplateRequestInput,
  type TemplateResponse,
  type TemplateView,
  type TemplatesResponse,
  type UploadTemplateMediaResponse,
} from '@switchboard/contracts';
import { api, request } from '../api';
import { ListTable } from '../ListTable';
import { placeholderCount } from '../template-text';
import { ConfirmButton } from '../ConfirmButton';
import { ErrorAlert } from '../ErrorAlert';
import { Section } from '../Section';
import { TemplateButtons, buttonsComponent, type DraftButton } from '../TemplateButtons';

/** The provider reviews a new template; its status is read again until it is decided. */
const REVIEW_POLL_MS = 2000;

const STATUS_COLORS: Record<string, string> = {
  APPROVED: 'teal.9',
  PENDING: 'yellow.4',
  REJECTED: 'red.9',
  PAUSED: 'orange.9',
  DISABLED: 'gray.7',
};

function bodyOf(template: TemplateView): string {
  const body = template.components.find((c) => String(c.type).toUpperCase() === 'BODY');
  return typeof body?.text === 'string' ? body.text : '';
}

type HeaderKind = 'none' | 'text' | 'image' | 'video' | 'document';

/** Each media header: its provider format, the files taken (as the Cloud API allows) and words. */
const MEDIA_HEADERS = {
  image: { format: 'IMAGE', accept: 'image/png,image/jpeg', hint: 'JPEG or PNG, up to 5 MB' },
  video: { format: 'VIDEO', accept: 'video/mp4,video/3gpp', hint: 'MP4 or 3GPP, up to 16 MB' },
  document: { format: 'DOCUMENT', accept: 'application/pdf', hint: 'PDF, up to 100 MB' },
} as const;

const isMedia = (kind: HeaderKind): kind is keyof typeof MEDIA_HEADERS => kind in MEDIA_HEADERS;

/** What a template holds besides its body, in a few words: its header kind and its buttons. */
function componentsSummary(template: TemplateView): string {
  const parts: string[] = [];
  for (const component of template.components) {
    const type = String(component.type).toUpperCase();
    if (type === 'HEADER') parts.push(`${String(component.format).toLowerCase()} header`);
    if (type === 'FOOTER') parts.push('footer');
    if (type === 'BUTTONS' && Array.isArray(component.buttons)) {
      const texts = (component.buttons as { text?: string }[]).map((b) => b.text ?? '…');
      parts.push(`buttons: ${texts.join(', ')}`);
    }
  }
  return parts.join(' · ');
}

function CreateTemplate({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [language, setLanguage] = useState('en_US');
  const [category, setCategory] = useState<string>('UTILITY');
  const [header, setHeader] = useState<HeaderKind>('none');
  const [headerText, setHeaderText] = useState('');
  const [headerExample, setHeaderExample] = useState('');
  const headerHasVariable = header === 'text' && placeholderCount(headerText) > 0;
  const [handle, setHandle] = useState<string | null>(null);
  const [body, setBody] = useState('');
  const [examples, setExamples] = useState<string[]>([]);
  const [footer, setFooter] = useState('');
  const [buttons, setButtons] = useState<DraftButton[]>([]);
  const count = placeholderCount(body);
  const upload = useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append('file', file);
      return request<UploadTemplateMediaResponse>('POST', '/api/svc/uploadTemplateMedia', {
        body: form,
      });
    },
    onSuccess: (answer) => setHandle(answer.handle),
  });
  const create = useMutation({
    mutationFn: () => {
      const components: Record<string, unknown>[] = [];
      if (header === 'text') {
        components.push({
          type: 'HEADER',
          format: 'TEXT',
          text: headerText,
          ...(headerHasVariable ? { example: { header_text: [headerExample] } } : {}),
        });
      }
      if (isMedia(header)) {
        components.push({
          type: 'HEADER',
          format: MEDIA_HEADERS[header].format,
          example: { header_handle: handle ? [handle] : [] },
        });
      }
      components.push({
        type: 'BODY',
        text: body,
        ...(count > 0
          ? { example: { body_text: [Array.from({ length: count }, (_, i) => examples[i] ?? '')] } }
          : {}),
      });
      if (footer.trim()) components.push({ type: 'FOOTER', text: footer });
      const buttonsPart = buttonsComponent(buttons);
      if (buttonsPart) components.push(buttonsPart);
      const input: CreateTemplateRequestInput = {
        template_name: name,
        template_language: language,
        category,
        components,
      };
      return api.op.post<TemplateResponse>('createTemplate', input);
    },
    onSuccess: () => {
      setName('');
      setBody('');
      setExamples([]);
      setFooter('');
      setHeaderText('');
      setHeaderExample('');
      setHandle(null);
      setButtons([]);
      onCreated();
    },
  });
  return (
    <Section id="new-template" title="New template" onSubmit={() => create.mutate()}>
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <TextInput
          label="Template name"
          description="Lowercase letters, digits and _"
          required
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
        />
        <TextInput
          label="Language"
          description="A code such as en_US"
          required
          value={language}
          onChange={(event) => setLanguage(event.currentTarget.value)}
        />
        <Select
          label="Category"
          data={[...TEMPLATE_CATEGORIES]}
          value={category}
          allowDeselect={false}
          onChange={(value) => setCategory(value ?? 'UTILITY')}
        />
      </SimpleGrid>
      <Stack gap="xs">
        <SegmentedControl
          aria-label="Header"
          data={[
            { value: 'none', label: 'No header' },
            { value: 'text', label: 'Text header' },
            { value: 'image', label: 'Image header' },
            { value: 'video', label: 'Video header' },
            { value: 'document', label: 'Document header' },
          ]}
          value={header}
          onChange={(value) => {
            // A handle is for the format it was uploaded as.
            setHandle(null);
            upload.reset();
            setHeader(value as HeaderKind);
          }}
        />
        {header === 'text' && (
          <TextInput
            label="Header text"
            required
            value={headerText}
            onChange={(event) => setHeaderText(event.currentTarget.value)}
          />
        )}
        {headerHasVariable && (
          <TextInput
            label="Example of the header's {{1}}"
            required
            value={headerExample}
            onChange={(event) => setHeaderExample(event.currentTarget.value)}
          />
        )}
        {isMedia(header) && (
          <Group>
            <FileButton
              onChange={(file) => file && upload.mutate(file)}
              accept={MEDIA_HEADERS[header].accept}
            >
              {(props) => (
                <Button {...props} variant="default" loading={upload.isPending}>
                  Upload header {header}
                </Button>
              )}
            </FileButton>
            <Text size="sm" role="status">
              {handle
                ? `${header[0]!.toUpperCase()}${header.slice(1)} uploaded`
                : `A sample ${header} for the review (${MEDIA_HEADERS[header].hint})`}
            </Text>
          </Group>
        )}
        <ErrorAlert error={upload.error} />
      </Stack>
      <Textarea
        label="Body"
        description="{{1}}, {{2}}… are filled when it is sent; give an example of each."
        required
        autosize
        minRows={3}
        value={body}
        onChange={(event) => setBody(event.currentTarget.value)}
      />
      {count > 0 && (
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          {Array.from({ length: count }, (_, index) => (
            <TextInput
              key={index}
              label={`Example of {{${index + 1}}}`}
              required
              value={examples[index] ?? ''}
              onChange={(event) => {
                const next = [...examples];
                next[index] = event.currentTarget.value;
                setExamples(next);
              }}
            />
          ))}
        </SimpleGrid>
      )}
      <TextInput
        label="Footer (optional)"
        value={footer}
        onChange={(event) => setFooter(event.currentTarget.value)}
      />
      <TemplateButtons buttons={buttons} onChange={setButtons} />
      <ErrorAlert error={create.error} title="The template was not created" />
      <Group>
        <Button type="submit" loading={create.isPending} disabled={isMedia(header) && !handle}>
          Submit for review
        </Button>
      </Group>
    </Section>
  );
}

export function TemplatesPage() {
  const queryClient = useQueryClient();
  const templates = useQuery({
    queryKey: ['templates'],
    queryFn: () => api.op.get<TemplatesResponse>('getTemplates'),
    refetchInterval: (query) =>
      query.state.data?.templates.some((t) => t.status === 'PENDING') ? REVIEW_POLL_MS : false,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['templates'] });
  const remove = useMutation({
    mutationFn: (template: TemplateView) =>
      api.op.delete('deleteTemplate', {
        template_name: template.template_name,
        template_language: template.template_language,
      }),
    onSettled: refresh,
  });
  return (
    <Stack>
      <Title order={1}>Templates</Title>
      <CreateTemplate onCreated={() => void refresh()} />
      <ErrorAlert error={remove.error} />
      <section aria-labelledby="template-list">
        <Title order={2} size="h4" id="template-list" mb="xs">
          Your templates
        </Title>
        <ErrorAlert error={templates.error} />
        {templates.data?.templates.length === 0 && <Text c="dimmed">No templates yet.</Text>}
        {templates.data && templates.data.templates.length > 0 && (
          <Table.ScrollContainer minWidth={800}>
            <ListTable
              label="Templates"
              headings={['Name', 'Language', 'Category', 'Body', 'Status', 'Actions']}
            >
              {templates.data.templates.map((template) => (
                <Table.Tr key={template.id} data-testid="template-row">
                  <Table.Td>{template.template_name}</Table.Td>
                  <Table.Td>{template.template_language}</Table.Td>
                  <Table.Td>{template.category}</Table.Td>
                  <Table.Td>
                    <Text size="xs" lineClamp={2} maw={320}>
                      {bodyOf(template)}
                    </Text>
                    {componentsSummary(template) && (
                      <Text size="xs" c="dimmed" maw={320}>
                        {componentsSummary(template)}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Badge color={STATUS_COLORS[template.status] ?? 'gray.7'}>
                      {template.status}
                    </Badge>
                    {template.rejection_reason && (
                      <Text size="xs">{template.rejection_reason}</Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <ConfirmButton
                      label={`Delete ${template.template_name} (${template.template_language})`}
                      question={`Delete the template “${template.template_name}”?`}
                      onConfirm={() => remove.mutate(template)}
                    >
                      Delete
                    </ConfirmButton>
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
