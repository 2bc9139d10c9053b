import { Alert } from '@mantine/core';
import { errorText } from './api';

/** The error of a request, where it happened, announced to screen readers; nothing without one. */
export function ErrorAlert({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <Alert color="red" role="alert">
      {errorText(error)}
    </Alert>
  );
}
