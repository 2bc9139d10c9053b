import type { IncomingHttpHeaders } from 'node:http';
import { USER_HEADERS } from '@switchboard/contracts';

/** A request header's value (node keeps their names lowercased), as express' `req.header` reads it. */
export function headerOf(req: { headers: IncomingHttpHeaders }, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return typeof value === 'string' ? value : undefined;
}

/** The signed-in user a request acts for (the gateway's headers), or undefined for an API token. */
export function signedInUserOf(req: {
  headers: IncomingHttpHeaders;
}): { user_id: number; role: string } | undefined {
  const id = headerOf(req, USER_HEADERS.userId);
  if (!id || !/^[1-9][0-9]{0,14}$/.test(id)) return undefined;
  return { user_id: Number(id), role: headerOf(req, USER_HEADERS.role) ?? '' };
}
