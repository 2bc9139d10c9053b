import pino from 'pino';
import type { Logger } from 'pino';
import { activeTraceFields } from './trace-context';

export type { Logger };

/** Paths whose values never reach a log line: tokens, secrets and credentials. */
export const REDACTED_PATHS = [
  'token',
  '*.token',
  'secret',
  '*.secret',
  'app_secret',
  '*.app_secret',
  'access_token',
  '*.access_token',
  'verify_token',
  '*.verify_token',
  'inbound_token',
  '*.inbound_token',
  'api_key',
  '*.api_key',
  'password',
  '*.password',
  'current_password',
  '*.current_password',
  'new_password',
  '*.new_password',
  'owner_password',
  '*.owner_password',
  'invitation',
  '*.invitation',
  'csrf_token',
  '*.csrf_token',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'req.headers.authorization',
  'req.headers["x-internal-secret"]',
  'req.headers.cookie',
  'req.query.token',
  'req.body.token',
  'headers.authorization',
  'headers["x-internal-secret"]',
];

/**
 * Standard output, written asynchronously: lines written while a write is in flight go out
 * together in the next one, rather than one blocking write per line on the request path. What is
 * still buffered is written synchronously when the process exits (pino flushes on `exit`).
 */
const asyncStdout = () => pino.destination({ dest: 1, sync: false });

export function createLogger(
  service: string,
  level: string,
  destination: pino.DestinationStream = asyncStdout(),
): Logger {
  return pino(
    {
      level,
      base: { service },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Every line written inside a span names its trace, to find the trace of a log line and back.
      mixin: activeTraceFields,
    },
    destination,
  );
}
