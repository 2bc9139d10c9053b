import { CSRF_HEADER } from '@switchboard/contracts';

/**
 * Every call the console makes: same origin, the session cookie only (the browser sends it;
 * no token is kept anywhere a script could read it later), and on writes the session's CSRF
 * token, which lives in memory and is read again from GET /auth/session after a reload.
 */
let csrfToken: string | null = null;
export const setCsrfToken = (token: string | null) => {
  csrfToken = token;
};

/** An answer the gateway refused: its status and the `{status:"error", message}` message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** Called when a request finds the session gone, so the app can show the sign-in page. */
let onSignedOut: () => void = () => undefined;
export const whenSignedOut = (handler: () => void) => {
  onSignedOut = handler;
};

export async function request<T>(
  method: string,
  path: string,
  options: { query?: Query; body?: unknown } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET' && csrfToken) headers[CSRF_HEADER] = csrfToken;
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const response = await fetch(withQuery(path, options.query), {
    method,
    headers,
    body,
    credentials: 'same-origin',
  });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const message =
      (parsed as { message?: string } | undefined)?.message ??
      `The server answered ${response.status}`;
    if (response.status === 401 && path !== '/auth/sign-in') onSignedOut();
    throw new ApiError(response.status, message);
  }
  return parsed as T;
}

export const api = {
  get: <T>(path: string, query?: Query) => request<T>('GET', path, { query }),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, { body: body ?? {} }),
  put: <T>(path: string, body?: unknown) => request<T>('PUT', path, { body: body ?? {} }),
  delete: <T>(path: string, query?: Query) => request<T>('DELETE', path, { query }),
  /** An `/api/svc/<operation>` call. */
  op: {
    get: <T>(operation: string, query?: Query) =>
      request<T>('GET', `/api/svc/${operation}`, { query }),
    post: <T>(operation: string, body?: unknown) =>
      request<T>('POST', `/api/svc/${operation}`, { body: body ?? {} }),
    put: <T>(operation: string, body?: unknown) =>
      request<T>('PUT', `/api/svc/${operation}`, { body: body ?? {} }),
    delete: <T>(operation: string, body: unknown) =>
      request<T>('DELETE', `/api/svc/${operation}`, { body }),
  },
};

export const errorText = (error: unknown): string =>
  error instanceof Error ? error.message : 'Something went wrong';
