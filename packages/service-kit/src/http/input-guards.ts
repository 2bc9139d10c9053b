import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors';

/**
 * Deeper than any body an operation takes (a flow's button title sits 6 levels down), and shallow
 * enough that code walking a body recursively (proxying, sanitizing, storing) never runs out of stack.
 */
export const MAX_INPUT_DEPTH = 32;

// PostgreSQL (under FerretDB) cannot store U+0000 in text, and a lone surrogate is not Unicode:
// neither can be stored faithfully or sent on to the provider, so both are refused at the edge.
const NUL = '\u0000';
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function textProblem(text: string): string | undefined {
  if (text.includes(NUL)) return 'must not contain NUL characters (U+0000)';
  if (LONE_SURROGATE.test(text)) return 'must not contain unpaired surrogates (not valid Unicode)';
  return undefined;
}

const fieldName = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * Walks parsed input without recursion and throws the 422 a client can act on: the first field
 * (or key) holding text that cannot be stored, or the point where nesting passes the limit.
 */
export function checkInput(input: unknown, where: string): void {
  const pending: { value: unknown; path: string; depth: number }[] = [
    { value: input, path: '', depth: 0 },
  ];
  while (pending.length > 0) {
    const { value, path, depth } = pending.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) throw new AppError('validation_failed', `${path || where}: ${problem}`);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_INPUT_DEPTH) {
      throw new AppError(
        'validation_failed',
        `${where} nests deeper than ${MAX_INPUT_DEPTH} levels${path ? ` at ${path}` : ''}`,
      );
    }
    for (const [key, child] of Object.entries(value)) {
      const problem = textProblem(key);
      if (problem)
        throw new AppError('validation_failed', `${where} key ${fieldName(path, key)}: ${problem}`);
      pending.push({ value: child, path: fieldName(path, key), depth: depth + 1 });
    }
  }
}

/** Checks the query string and a parsed body (JSON or form) before any route sees them. */
export function guardInput(req: Request, _res: Response, next: NextFunction): void {
  checkInput(req.query, 'query');
  // A body the parsers left alone (multipart, a signed webhook) is a Buffer or undefined: its owner judges it.
  if (req.body === undefined || Buffer.isBuffer(req.body)) return next();
  // Every operation takes named fields; a JSON array would otherwise read as "no fields given".
  if (Array.isArray(req.body)) {
    throw new AppError('validation_failed', 'body: must be a JSON object, not an array');
  }
  checkInput(req.body, 'body');
  next();
}
