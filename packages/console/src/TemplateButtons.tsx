import { Button, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { TEMPLATE_LIMITS } from '@switchboard/contracts';

/** A button of a template being written, in the form's terms (before it is the provider's). */
export interface DraftButton {
  type: 'QUICK_REPLY' | 'URL' | 'PHONE_NUMBER';
  text: string;
  url: string;
  /** The full URL of an example, when the URL ends in `{{1}}`. */
  example: string;
  phone: string;
}

const BUTTON_KINDS = [
  { value: 'QUICK_REPLY', label: 'Quick reply' },
  { value: 'URL', label: 'Visit website' },
  { value: 'PHONE_NUMBER', label: 'Call phone number' },
];

const urlHasPlaceholder = (url: string) => /\{\{\s*1\s*\}\}\s*$/.test(url);

export const newButton = (): DraftButton => ({
  type: 'QUICK_REPLY',
  text: '',
  url: '',
  example: '',
  phone: '',
});

/** The BUTTONS component in the provider's format; none when there are no buttons. */
export function buttonsComponent(buttons: DraftButton[]): Record<string, unknown> | null {
  if (buttons.length === 0) return null;
  return {
    type: 'BUTTONS',
    buttons: buttons.map((button) => {
      if (button.type === 'URL') {
        return {
          type: 'URL',
          text: button.text,
          url: button.url,
          ...(urlHasPlaceholder(button.url) ? { example: [button.example] } : {}),
        };
      }
      if (button.type === 'PHONE_NUMBER') {
        return { type: 'PHONE_NUMBER', text: button.text, phone_number: button.phone };
      }
      return { type: 'QUICK_REPLY', text: button.text };
    }),
  };
}

/**
 * The buttons of a new template, one row each. The provider's mix rules (how many of each kind,
 * quick replies kept together) are checked by the API, whose refusal names the button.
 */
export function TemplateButtons({
  buttons,
  onChange,
}: {
  buttons: DraftButton[];
  onChange: (buttons: DraftButton[]) => void;
}) {
  const set = (index: number, change: Partial<DraftButton>) =>
    onChange(buttons.map((button, i) => (i === index ? { ...button, ...change } : button)));
  return (
    <Stack gap="xs" role="group" aria-labelledby="template-buttons">
      <Text size="sm" fw={700} id="template-buttons">
        Buttons
      </Text>
      <Text size="xs" c="dimmed">
        Up to {TEMPLATE_LIMITS.buttons}: at most 2 website buttons and 1 phone button, quick replies
        kept together.
      </Text>
      {buttons.map((button, index) => {
        const n = index + 1;
        return (
          <Group key={index} align="flex-end" data-testid="template-button">
            <Select
              label={`Button ${n} kind`}
              data={BUTTON_KINDS}
              value={button.type}
              allowDeselect={false}
              onChange={(value) =>
                set(index, { type: (value ?? 'QUICK_REPLY') as DraftButton['type'] })
              }
              w={170}
            />
            <TextInput
              label={`Button ${n} text`}
              required
              maxLength={TEMPLATE_LIMITS.buttonText}
              w={170}
              value={button.text}
              onChange={(event) => set(index, { text: event.currentTarget.value })}
            />
            {button.type === 'URL' && (
              <TextInput
                label={`Button ${n} URL`}
                description="May end in {{1}}, filled when sent"
                required
                value={button.url}
                onChange={(event) => set(index, { url: event.currentTarget.value })}
                w={220}
              />
            )}
            {button.type === 'URL' && urlHasPlaceholder(button.url) && (
              <TextInput
                label={`Button ${n} example URL`}
                required
                value={button.example}
                onChange={(event) => set(index, { example: event.currentTarget.value })}
                w={220}
              />
            )}
            {button.type === 'PHONE_NUMBER' && (
              <TextInput
                label={`Button ${n} phone number`}
                description="With country code"
                required
                value={button.phone}
                onChange={(event) => set(index, { phone: event.currentTarget.value })}
              />
            )}
            <Button
              variant="default"
              aria-label={`Remove button ${n}`}
              onClick={() => onChange(buttons.filter((_, i) => i !== index))}
            >
              Remove
            </Button>
          </Group>
        );
      })}
      <Group>
        <Button
          variant="default"
          disabled={buttons.length >= TEMPLATE_LIMITS.buttons}
          onClick={() => onChange([...buttons, newButton()])}
        >
          Add button
        </Button>
      </Group>
    </Stack>
  );
}
