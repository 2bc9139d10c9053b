import { Alert } from '@mantine/core';
import { errorText } from './api';

/**
 * The error of a request, where it happened, announced to screen readers; nothing without one.
 * `title` says what did not happen ("The user was not added") above the server's reason.
 */
export function ErrorAlert({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  return (
    <Alert color="red" role="alert" title={title}>
      {errorText(error)}
    </Alert>
  );
}
