import { randomBytes } from 'node:crypto';
import { describeErrorCode, ERROR_CODES_HREF } from './error-catalog';

export interface GraphErrorOptions {
  /** `error_data.details`: the specific reason; defaults to the catalog's text. */
  details?: string;
  /** Overrides the HTTP status from the catalog (e.g. a fault asking for 503). */
  httpStatus?: number;
  /** Replaces the whole `message` (Graph's own errors such as 2500 have no `(#code)` prefix). */
  message?: string;
  subcode?: number;
  userTitle?: string;
  userMessage?: string;
}

export interface GraphErrorBody {
  error: {
    message: string;
    type: 'OAuthException';
    code: number;
    error_data?: { messaging_product: 'whatsapp'; details: string };
    error_subcode?: number;
    is_transient?: boolean;
    error_user_title?: string;
    error_user_msg?: string;
    fbtrace_id: string;
  };
}

/** The asynchronous form, inside `statuses[].errors`, `value.errors` and `messages[].errors`. */
export interface WebhookError {
  code: number;
  title: string;
  message: string;
  error_data: { details: string };
  href: string;
}

/** Codes that are Graph-level (authentication, routing) carry no WhatsApp `error_data`. */
const GRAPH_LEVEL_CODES = new Set([0, 190, 2500]);

/** A synchronous Cloud API error: `{error:{message:"(#code) title", type, code, error_data, fbtrace_id}}`. */
export class GraphError extends Error {
  readonly code: number;
  readonly httpStatus: number;
  readonly details: string | undefined;
  readonly subcode: number | undefined;
  readonly userTitle: string | undefined;
  readonly userMessage: string | undefined;

  constructor(code: number, options: GraphErrorOptions = {}) {
    const info = describeErrorCode(code);
    super(options.message ?? `(#${code}) ${info.title}`);
    this.name = 'GraphError';
    this.code = code;
    this.httpStatus = options.httpStatus ?? info.httpStatus;
    this.details = GRAPH_LEVEL_CODES.has(code) ? undefined : (options.details ?? info.details);
    this.subcode = options.subcode;
    this.userTitle = options.userTitle;
    this.userMessage = options.userMessage;
  }

  toBody(): GraphErrorBody {
    return {
      error: {
        message: this.message,
        type: 'OAuthException',
        code: this.code,
        ...(this.details !== undefined && {
          error_data: { messaging_product: 'whatsapp' as const, details: this.details },
        }),
        ...(this.subcode !== undefined && { error_subcode: this.subcode }),
        ...(this.userTitle !== undefined && {
          is_transient: false,
          error_user_title: this.userTitle,
          error_user_msg: this.userMessage ?? this.userTitle,
        }),
        fbtrace_id: mintFbtraceId(),
      },
    };
  }
}

export function mintFbtraceId(): string {
  return `A${randomBytes(16).toString('base64url').slice(0, 22)}`;
}

/** Shorthands for the two validation families Meta uses: bad value (100) and bad structure (131009). */
export const invalidParameter = (details: string): GraphError => new GraphError(100, { details });
export const invalidValue = (details: string): GraphError => new GraphError(131009, { details });
export const missingParameter = (details: string): GraphError =>
  new GraphError(131008, { details });

export function unknownObject(method: string, id: string): GraphError {
  return new GraphError(100, {
    subcode: 33,
    message: `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
  });
}

export function webhookError(code: number, details?: string): WebhookError {
  const info = describeErrorCode(code);
  return {
    code,
    title: info.title,
    message: info.title,
    error_data: { details: details ?? info.details ?? info.title },
    href: ERROR_CODES_HREF,
  };
}
