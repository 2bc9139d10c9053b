import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

/** A bordered table of records, named for screen readers: its column headings, then its rows. */
export function ListTable({
  label,
  headings,
  striped = false,
  children,
}: {
  label: string;
  headings: readonly string[];
  striped?: boolean;
  children: ReactNode;
}) {
  return (
    <Table striped={striped} withTableBorder aria-label={label}>
      <Table.Thead>
        <Table.Tr>
          {headings.map((heading) => (
            <Table.Th key={heading}>{heading}</Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>{children}</Table.Tbody>
    </Table>
  );
}
