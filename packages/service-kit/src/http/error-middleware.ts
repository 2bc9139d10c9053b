import type { NextFunction, Request, Response } from 'express';
import { ZodError } from 'zod';
import type { ErrorResponse } from '@switchboard/contracts';
import { AppError, describeZodError } from '../errors';
import { requestLogger } from './request-context';

/** The spec's error envelope of an AppError, its details beside the three fields they never override. */
export function errorBody(error: AppError): ErrorResponse & Record<string, unknown> {
  const body: ErrorResponse = { status: 'error', message: error.message, code: error.code };
  return { ...error.details, ...body };
}

export function sendError(res: Response, error: AppError): void {
  // Read by the HTTP metrics, which count error answers by code.
  res.locals.errorCode = error.code;
  res.status(error.httpStatus).json(errorBody(error));
}

export function notFoundHandler(req: Request, res: Response): void {
  sendError(res, new AppError('not_found', `No route for ${req.method} ${req.path}`));
}

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** Maps every thrown error to the spec's envelope; unknown errors are logged once, here, and never leak details. */
export function errorMiddleware(
  error: unknown,
  _req: Request,
  res: Response,
  next: NextFunction,
): void {
  if (res.headersSent) {
    next(error);
    return;
  }
  sendError(res, toAppError(error, res));
}

function toAppError(error: unknown, res: Response): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof ZodError) return new AppError('validation_failed', describeZodError(error));
  const parserError = error as BodyParserError;
  switch (parserError?.type) {
    case 'entity.parse.failed':
      return new AppError('malformed_json', 'Request body is not valid JSON');
    case 'entity.too.large':
      return new AppError('payload_too_large', 'Request body is too large');
    case 'parameters.too.many':
      return new AppError('payload_too_large', 'Request has too many parameters');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('validation_failed', 'Unsupported request encoding');
    case 'request.aborted':
      return new AppError('malformed_json', 'Request was aborted');
  }
  requestLogger(res).error({ err: error }, 'unhandled error');
  return new AppError('internal_error', 'Internal error');
}
