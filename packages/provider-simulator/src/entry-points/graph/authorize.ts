import type { Request, RequestHandler } from 'express';
import { GraphError, unknownObject } from '../../domain/graph-error';
import type { SimulatorContext } from '../../simulator-context';
import type { Channel } from '../../state/channel';
import type { WabaState } from '../../state/records';

/** `Authorization: Bearer <token>`, or Graph's `?access_token=` query parameter. */
export function readAccessToken(req: Request): string | undefined {
  const header = req.get('authorization');
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (match) return match[1];
  const query = req.query.access_token;
  return typeof query === 'string' && query !== '' ? query : undefined;
}

/**
 * A token is accepted if it is one of the simulator's own tokens or any channel's token; which
 * objects it may touch is decided per route (a channel's token reaches that channel and its WABA).
 * Missing and unknown tokens both answer 190 with HTTP 401.
 */
export function authenticateBearer(ctx: SimulatorContext): RequestHandler {
  return (req, res, next) => {
    const token = readAccessToken(req);
    if (token === undefined) {
      throw new GraphError(190, {
        message: '(#190) An access token is required to request this resource.',
      });
    }
    const known =
      ctx.options.accessTokens.includes(token) ||
      [...ctx.state.channels.values()].some((c) => c.registration.access_token === token);
    if (!known) throw new GraphError(190);
    res.locals.token = token;
    next();
  };
}

const isGlobalToken = (ctx: SimulatorContext, token: string): boolean =>
  ctx.options.accessTokens.includes(token);

export function channelFor(ctx: SimulatorContext, token: string, id: string): Channel | undefined {
  const channel = ctx.state.channels.get(id);
  if (!channel) return undefined;
  return isGlobalToken(ctx, token) || channel.registration.access_token === token
    ? channel
    : undefined;
}

export function wabaFor(ctx: SimulatorContext, token: string, id: string): WabaState | undefined {
  const waba = ctx.state.wabas.get(id);
  if (!waba) return undefined;
  if (isGlobalToken(ctx, token)) return waba;
  return ctx.state.channelsOfWaba(id).some((c) => c.registration.access_token === token)
    ? waba
    : undefined;
}

/** The channel, or Graph's "object does not exist or missing permissions" error (100/33). */
export function requireChannel(
  ctx: SimulatorContext,
  token: string,
  id: string,
  method: string,
): Channel {
  const channel = channelFor(ctx, token, id);
  if (!channel) throw unknownObject(method, id);
  return channel;
}

export function requireWaba(
  ctx: SimulatorContext,
  token: string,
  id: string,
  method: string,
): WabaState {
  const waba = wabaFor(ctx, token, id);
  if (!waba) throw unknownObject(method, id);
  return waba;
}

/** The address clients reached the simulator on, for URLs it hands out (media, paging). */
export function baseUrlOf(ctx: SimulatorContext, req: Request): string {
  return ctx.options.publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}
