import type { Request, Response } from 'express';
import { DEVELOPMENT_SESSION_COOKIE, SESSION_COOKIE } from '@switchboard/contracts';

/**
 * The session cookie: HttpOnly (no script reads it), SameSite=Lax (no cross-site subrequest or
 * form post carries it), Path=/. Outside development it is Secure and named with the `__Host-`
 * prefix, which browsers accept only from HTTPS, without Domain, for the whole host: a sibling
 * subdomain cannot plant or overwrite it.
 */
export function createSessionCookie(options: { secure: boolean }) {
  const name = options.secure ? SESSION_COOKIE : DEVELOPMENT_SESSION_COOKIE;
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Lax', ...(options.secure ? ['Secure'] : [])];

  return {
    name,

    read(req: Request): string | undefined {
      const header = req.headers.cookie;
      if (!header) return undefined;
      for (const pair of header.split(';')) {
        const at = pair.indexOf('=');
        if (at > 0 && pair.slice(0, at).trim() === name) {
          const value = pair.slice(at + 1).trim();
          return value === '' ? undefined : value;
        }
      }
      return undefined;
    },

    /** Lives as long as the session's absolute expiry allows; the idle expiry is the server's. */
    set(res: Response, secret: string, session: { created_at: Date; expires_at: Date }): void {
      const lifetimeMs = session.expires_at.getTime() - session.created_at.getTime();
      const maxAge = Math.max(0, Math.floor(lifetimeMs / 1000));
      res.append(
        'Set-Cookie',
        [`${name}=${secret}`, ...attributes, `Max-Age=${maxAge}`].join('; '),
      );
    },

    clear(res: Response): void {
      res.append('Set-Cookie', [`${name}=`, ...attributes, 'Max-Age=0'].join('; '));
    },
  };
}

export type SessionCookie = ReturnType<typeof createSessionCookie>;
