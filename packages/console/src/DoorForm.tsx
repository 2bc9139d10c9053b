import type { FormEvent, ReactNode } from 'react';
import { Button, Center, Paper, Stack, Title } from '@mantine/core';
import { ErrorAlert } from './ErrorAlert';

/**
 * The card of a page seen before signing in (signing in, accepting an invitation): its title,
 * an optional line under it, the refusal, the fields and the one button that submits them.
 */
export function DoorForm({
  title,
  intro,
  width,
  error,
  errorTitle,
  submitLabel,
  pending,
  disabled,
  onSubmit,
  children,
}: {
  title: string;
  intro?: ReactNode;
  width: number;
  error: unknown;
  errorTitle: string;
  submitLabel: string;
  pending: boolean;
  disabled?: boolean;
  onSubmit: () => void;
  children: ReactNode;
}) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <Center mih="100vh" component="main">
      <Paper withBorder shadow="sm" p="xl" w={width}>
        <form onSubmit={submit}>
          <Stack>
            <Title order={1} size="h2">
              {title}
            </Title>
            {intro}
            <ErrorAlert error={error} title={errorTitle} />
            {children}
            <Button type="submit" loading={pending} disabled={disabled}>
              {submitLabel}
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
