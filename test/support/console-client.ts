import { CSRF_HEADER, DEVELOPMENT_SESSION_COOKIE } from '@switchboard/contracts';
import type { LooseJson } from './test-infra';

export interface Answer {
  status: number;
  body: LooseJson;
  headers: Headers;
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  return {
    status: response.status,
    body: text ? (JSON.parse(text) as LooseJson) : {},
    headers: response.headers,
  };
}

/** A caller of the gateway: with a session cookie and its CSRF token, with a token, or neither. */
export interface Credentials {
  cookie?: string;
  csrf?: string;
  token?: string;
}

/** One request as the console (or an API client) makes it; JSON in, JSON out. */
export async function callGateway(
  baseUrl: string,
  method: string,
  path: string,
  credentials: Credentials = {},
  body?: Record<string, unknown>,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (credentials.cookie) headers.cookie = credentials.cookie;
  if (credentials.csrf) headers[CSRF_HEADER] = credentials.csrf;
  if (credentials.token) headers.authorization = `Bearer ${credentials.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(baseUrl + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return answerOf(response);
}

export interface SignedInSession extends Required<Pick<Credentials, 'cookie' | 'csrf'>> {
  /** The cookie's value alone (the session secret). */
  secret: string;
  setCookie: string;
  user: LooseJson;
}

/**
 * The session cookie a `Set-Cookie` header sets (either name: `__Host-` outside development),
 * as a `Cookie` header would send it back.
 */
export function sessionCookieOf(setCookie: string | null): { cookie: string; secret: string } {
  const pattern = new RegExp(`(?:^|, )((?:__Host-)?${DEVELOPMENT_SESSION_COOKIE}=([^;]*))`);
  const match = pattern.exec(setCookie ?? '');
  if (!match) throw new Error(`no session cookie in ${setCookie}`);
  return { cookie: match[1]!, secret: match[2]! };
}

export async function signIn(
  baseUrl: string,
  email: string,
  password: string,
): Promise<SignedInSession> {
  const answer = await callGateway(baseUrl, 'POST', '/auth/sign-in', {}, { email, password });
  if (answer.status !== 200) throw new Error(`sign-in failed: ${JSON.stringify(answer.body)}`);
  const setCookie = answer.headers.get('set-cookie')!;
  return {
    ...sessionCookieOf(setCookie),
    setCookie,
    csrf: answer.body.csrf_token as string,
    user: answer.body.user as LooseJson,
  };
}

/** The invitation secret of an invitation link (it travels in the fragment). */
export function invitationOf(url: string): string {
  return new URL(url).hash.replace(/^#invitation=/, '');
}
