import type { Request } from 'express';
import { USER_HEADERS } from '@switchboard/contracts';

/** The signed-in user a request acts for (the gateway's headers), or undefined for an API token. */
export function signedInUserOf(req: Request): { user_id: number; role: string } | undefined {
  const id = req.header(USER_HEADERS.userId);
  if (!id || !/^[1-9][0-9]{0,14}$/.test(id)) return undefined;
  return { user_id: Number(id), role: req.header(USER_HEADERS.role) ?? '' };
}
