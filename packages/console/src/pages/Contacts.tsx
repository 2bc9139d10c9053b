import { Stack, Text, Title } from '@mantine/core';

export function ContactsPage() {
  return (
    <Stack>
      <Title order={1}>Contacts</Title>
      <Text c="dimmed">Coming soon.</Text>
    </Stack>
  );
}
