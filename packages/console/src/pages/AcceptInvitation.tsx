import { useState, type FormEvent } from 'react';
import {
  Alert,
  Button,
  Center,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router-dom';
import { PASSWORD_MIN_LENGTH, type SessionResponse } from '@switchboard/contracts';
import { api, errorText } from '../api';
import { useSession } from '../session';

/** The invitation secret travels in the link's fragment, which no server or log ever sees. */
const invitationFromHash = () =>
  new URLSearchParams(window.location.hash.slice(1)).get('invitation');

export function AcceptInvitationPage() {
  const { signedIn } = useSession();
  const navigate = useNavigate();
  const [invitation] = useState(invitationFromHash);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const accept = useMutation({
    mutationFn: () =>
      api.post<SessionResponse>('/auth/accept-invitation', {
        invitation,
        password,
        ...(name.trim() ? { name: name.trim() } : {}),
      }),
    onSuccess: (answer) => {
      signedIn(answer);
      // The secret is spent: drop it from the address bar and history.
      navigate('/inbox', { replace: true });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    accept.mutate();
  };
  return (
    <Center mih="100vh" component="main">
      <Paper withBorder shadow="sm" p="xl" w={420}>
        <form onSubmit={submit}>
          <Stack>
            <Title order={1} size="h2">
              Accept your invitation
            </Title>
            {!invitation ? (
              <Alert color="red" role="alert">
                This link has no invitation in it. Open the whole link from your invitation again.
              </Alert>
            ) : (
              <Text size="sm">Choose a password to finish setting up your account.</Text>
            )}
            {accept.isError && (
              <Alert color="red" role="alert" title="Could not accept the invitation">
                {errorText(accept.error)}
              </Alert>
            )}
            <TextInput
              label="Your name (optional)"
              autoComplete="name"
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
            />
            <PasswordInput
              label="New password"
              description={`At least ${PASSWORD_MIN_LENGTH} characters`}
              autoComplete="new-password"
              required
              minLength={PASSWORD_MIN_LENGTH}
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
            />
            <Button type="submit" loading={accept.isPending} disabled={!invitation}>
              Set password and sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
