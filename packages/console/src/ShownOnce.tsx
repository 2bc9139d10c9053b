import { Alert, Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';

/**
 * A credential the server shows this once (a new API token, a webhook's signing secret): shown
 * whole with a copy button until the user says it is stored.
 */
export function ShownOnce({
  title,
  note,
  value,
  copyLabel,
  testId,
  onDone,
}: {
  title: string;
  note: string;
  value: string;
  copyLabel: string;
  testId: string;
  onDone: () => void;
}) {
  return (
    <Alert color="yellow" title={title} role="status">
      <Stack gap="xs">
        <Text size="sm">{note}</Text>
        <Code block data-testid={testId}>
          {value}
        </Code>
        <Group>
          <CopyButton value={value}>
            {({ copied, copy }) => (
              <Button size="xs" variant="default" onClick={copy}>
                {copied ? 'Copied' : copyLabel}
              </Button>
            )}
          </CopyButton>
          <Button size="xs" variant="default" onClick={onDone}>
            I have stored it
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
