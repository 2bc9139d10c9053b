import type { Request, Response } from 'express';
import type { SimulatorContext } from '../../simulator-context';
import { matchesMedia, takeMatchingRule } from '../faults/fault-rules';
import { GraphError } from '../graph-error';

/**
 * Applies the first media fault matching this lookup or download, if any: waits its latency, then
 * drops the connection or answers its status. True when the fault answered (the caller stops).
 */
export async function applyMediaFault(
  ctx: SimulatorContext,
  stage: 'lookup' | 'download',
  mediaId: string,
  req: Request,
  res: Response,
): Promise<boolean> {
  const rule = takeMatchingRule(ctx.state.faults, (r) => matchesMedia(r, stage, mediaId));
  if (!rule) return false;
  if (rule.latency_ms) await new Promise((resolve) => setTimeout(resolve, rule.latency_ms));
  if (rule.drop_connection) {
    req.socket.destroy();
    return true;
  }
  if (rule.http_status === undefined) return false;
  if (stage === 'download') {
    res.status(rule.http_status).type('text/plain').send('Simulated download failure');
  } else {
    const error = new GraphError(131000, { httpStatus: rule.http_status });
    res.status(rule.http_status).json(error.toBody());
  }
  return true;
}
