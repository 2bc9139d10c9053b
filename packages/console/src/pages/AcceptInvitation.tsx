import { useState } from 'react';
import { Alert, PasswordInput, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router-dom';
import { PASSWORD_MIN_LENGTH, type SessionResponse } from '@switchboard/contracts';
import { api } from '../api';
import { DoorForm } from '../DoorForm';
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
  return (
    <DoorForm
      title="Accept your invitation"
      intro={
        !invitation ? (
          <Alert color="red" role="alert">
            This link has no invitation in it. Open the whole link from your invitation again.
          </Alert>
        ) : (
          <Text size="sm">Choose a password to finish setting up your account.</Text>
        )
      }
      width={420}
      error={accept.error}
      errorTitle="Could not accept the invitation"
      submitLabel="Set password and sign in"
      pending={accept.isPending}
      disabled={!invitation}
      onSubmit={() => accept.mutate()}
    >
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
    </DoorForm>
  );
}
