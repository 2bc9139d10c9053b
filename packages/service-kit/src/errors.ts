import { ERROR_CODES, type ErrorCode } from '@switchboard/contracts';
import type { ZodError, ZodType } from 'zod';

export interface AppErrorOptions {
  httpStatus?: number;
  cause?: unknown;
  /** Extra fields merged into the error envelope, e.g. the names of unknown events. */
  details?: Record<string, unknown>;
  /**
   * Which case of `code` this is, for the code that catches the error (`code` alone may cover
   * cases that must be handled apart). Never part of the answer a client gets.
   */
  reason?: string;
}

/** The one error type every layer throws; the HTTP error middleware turns it into the spec's envelope. */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly httpStatus: number;
  readonly details: Record<string, unknown> | undefined;
  readonly reason: string | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.httpStatus = options.httpStatus ?? ERROR_CODES[code];
    this.details = options.details;
    this.reason = options.reason;
  }
}

export function describeZodError(error: ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.map(String).join('.');
      return field ? `${field}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/** Parses untrusted input, answering a 422 that names each offending field. */
export function parseInput<T>(schema: ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new AppError('validation_failed', describeZodError(result.error));
  }
  return result.data;
}
