import type { ErrorRequestHandler } from 'express';
import type { z } from 'zod';
import type { Logger } from '../../logger';
import type { WebhookRecord } from '../../state/records';

/** Control API errors answer in Switchboard's own envelope: `{status:"error", message, code}`. */
export class ControlError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const message = result.error.issues
    .map((issue) =>
      issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
    )
    .join('; ');
  throw new ControlError(422, 'validation_failed', message);
}

export function controlErrorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    if (error instanceof ControlError) {
      res
        .status(error.httpStatus)
        .json({ status: 'error', message: error.message, code: error.code });
      return;
    }
    const type = (error as { type?: unknown } | null)?.type;
    if (type === 'entity.parse.failed') {
      res.status(400).json({ status: 'error', message: 'Malformed JSON', code: 'malformed_json' });
      return;
    }
    log.error('unexpected error in a control route', {
      error: error instanceof Error ? error.stack : String(error),
    });
    res.status(500).json({ status: 'error', message: 'Internal error', code: 'internal' });
  };
}

/** How a posted webhook is shown in control answers. */
export function summarizeWebhook(record: WebhookRecord): Record<string, unknown> {
  const last = record.attempts.at(-1);
  return {
    id: record.id,
    url: record.url,
    field: record.field,
    state: record.state,
    attempts: record.attempts.length,
    response_status: last?.status ?? null,
    ...(last?.error !== undefined && { error: last.error }),
  };
}
