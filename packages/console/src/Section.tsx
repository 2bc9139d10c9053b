import { Paper, Stack, Title, type MantineSpacing } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';

/** A form's submit handler that runs `act` instead of the browser's own submit (a page load). */
export const submitting = (act: () => void) => (event: FormEvent) => {
  event.preventDefault();
  act();
};

/**
 * A titled panel of a page, named for screen readers by its title (`id` is the title's). With
 * `onSubmit` the whole panel is one form.
 */
export function Section({
  id,
  title,
  gap,
  onSubmit,
  children,
}: {
  id: string;
  title: ReactNode;
  gap?: MantineSpacing;
  onSubmit?: () => void;
  children: ReactNode;
}) {
  const body = (
    <Stack gap={gap}>
      <Title order={2} size="h4" id={id}>
        {title}
      </Title>
      {children}
    </Stack>
  );
  return (
    <Paper withBorder p="md" component="section" aria-labelledby={id}>
      {onSubmit ? <form onSubmit={submitting(onSubmit)}>{body}</form> : body}
    </Paper>
  );
}
