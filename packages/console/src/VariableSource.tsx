import { Group, Select, TextInput } from '@mantine/core';

// Where a placeholder's value comes from, in the API's string forms: `contact.<field>`,
// `contact.custom.<key>`, `data.<path>` (API campaigns only) or else a fixed text.

const FIELD_CHOICES = [
  { value: 'contact.name', label: 'Contact name' },
  { value: 'contact.phone', label: 'Contact phone' },
  { value: 'contact.email', label: 'Contact email' },
  { value: 'custom', label: 'Custom field' },
  { value: 'fixed', label: 'Fixed text' },
];
/** API campaigns may also fill a placeholder from the `data` of the call that sends them. */
const API_DATA_CHOICE = { value: 'data', label: 'Data of the API call' };

type SourceKind = 'contact.name' | 'contact.phone' | 'contact.email' | 'custom' | 'data' | 'fixed';

/** The choice a variable's text stands for, as the API reads it (`contact.x`, `data.x`, else text). */
function sourceKind(value: string): SourceKind {
  if (value.startsWith('contact.custom.')) return 'custom';
  if (value.startsWith('contact.')) return value as SourceKind;
  if (value.startsWith('data.')) return 'data';
  return 'fixed';
}

/** The second input of a choice that needs one: its label and the prefix its text is under. */
const DETAIL: Partial<Record<SourceKind, { label: string; prefix: string; hint: string }>> = {
  custom: { label: 'Custom field key', prefix: 'contact.custom.', hint: 'Such as city' },
  data: { label: 'Data path', prefix: 'data.', hint: 'A dot path such as order.id' },
  fixed: { label: 'Text', prefix: '', hint: 'The same for every contact' },
};

const START_OF: Record<SourceKind, string> = {
  'contact.name': 'contact.name',
  'contact.phone': 'contact.phone',
  'contact.email': 'contact.email',
  custom: 'contact.custom.',
  data: 'data.',
  fixed: '',
};

/** One placeholder's source: a contact field, a custom field, the API call's data or a text. */
export function SourcePicker(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  withData: boolean;
}) {
  const { label, value, onChange, withData } = props;
  const kind = sourceKind(value);
  const detail = DETAIL[kind];
  return (
    <Group align="flex-end">
      <Select
        label={label}
        data={withData ? [...FIELD_CHOICES, API_DATA_CHOICE] : FIELD_CHOICES}
        value={kind}
        allowDeselect={false}
        onChange={(choice) => onChange(START_OF[(choice ?? 'contact.name') as SourceKind])}
      />
      {detail && (
        <TextInput
          label={`${detail.label} of ${label}`}
          description={detail.hint}
          required={kind !== 'fixed'}
          value={value.slice(detail.prefix.length)}
          onChange={(event) => onChange(detail.prefix + event.currentTarget.value)}
        />
      )}
    </Group>
  );
}
