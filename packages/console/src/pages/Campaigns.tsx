import { Stack, Text, Title } from '@mantine/core';

export function CampaignsPage() {
  return (
    <Stack>
      <Title order={1}>Campaigns</Title>
      <Text c="dimmed">Coming soon.</Text>
    </Stack>
  );
}
