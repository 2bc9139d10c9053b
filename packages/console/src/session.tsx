import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { SessionResponse } from '@switchboard/contracts';
import { ApiError, api, setCsrfToken, whenSignedOut } from './api';

export type SessionUser = SessionResponse['user'];

interface SessionState {
  user: SessionUser | null;
  loading: boolean;
  /** Stores a fresh sign-in's answer (its CSRF token stays in memory only). */
  signedIn(answer: SessionResponse): void;
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [user, setUser] = useState<SessionUser | null>(null);
  // After a reload the cookie is still there: the session answer gives the user and the token.
  const current = useQuery({
    queryKey: ['session'],
    queryFn: async () => {
      try {
        return await api.get<SessionResponse>('/auth/session');
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: Infinity,
    retry: false,
  });
  useEffect(() => {
    if (current.data !== undefined) {
      setCsrfToken(current.data?.csrf_token ?? null);
      setUser(current.data?.user ?? null);
    }
  }, [current.data]);
  useEffect(() => {
    whenSignedOut(() => {
      setCsrfToken(null);
      setUser(null);
    });
  }, []);

  const state: SessionState = {
    user,
    loading: current.isPending,
    signedIn(answer) {
      setCsrfToken(answer.csrf_token);
      setUser(answer.user);
      queryClient.setQueryData(['session'], answer);
    },
    async signOut() {
      await api.post('/auth/sign-out').catch(() => undefined);
      setCsrfToken(null);
      setUser(null);
      queryClient.clear();
      queryClient.setQueryData(['session'], null);
    },
  };
  return <SessionContext.Provider value={state}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}

export const isManager = (user: SessionUser | null) =>
  user?.role === 'owner' || user?.role === 'admin';
