import { useState } from 'react';
import { PasswordInput, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import type { SessionResponse } from '@switchboard/contracts';
import { api } from '../api';
import { DoorForm } from '../DoorForm';
import { useSession } from '../session';

export function SignInPage() {
  const { signedIn } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useMutation({
    mutationFn: () => api.post<SessionResponse>('/auth/sign-in', { email, password }),
    onSuccess: signedIn,
  });
  return (
    <DoorForm
      title="Sign in to Switchboard"
      width={380}
      error={signIn.error}
      errorTitle="Could not sign in"
      submitLabel="Sign in"
      pending={signIn.isPending}
      onSubmit={() => signIn.mutate()}
    >
      <TextInput
        label="Email"
        type="email"
        autoComplete="username"
        required
        value={email}
        onChange={(event) => setEmail(event.currentTarget.value)}
      />
      <PasswordInput
        label="Password"
        autoComplete="current-password"
        required
        value={password}
        onChange={(event) => setPassword(event.currentTarget.value)}
      />
    </DoorForm>
  );
}
