import { Button, Group, Text } from '@mantine/core';

/** Previous / next over a paged list whose answer says whether a next page exists. */
export function Pager(props: { page: number; hasNext: boolean; onPage: (page: number) => void }) {
  const { page, hasNext, onPage } = props;
  return (
    <Group gap="xs">
      <Button size="xs" variant="default" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </Button>
      <Text size="sm">Page {page}</Text>
      <Button size="xs" variant="default" disabled={!hasNext} onClick={() => onPage(page + 1)}>
        Next page
      </Button>
    </Group>
  );
}
