import { ERROR_CODES, INTERNAL_SECRET_HEADER, type ErrorCode } from '@switchboard/contracts';
import { AppError } from './errors';
import type { Logger } from './logger';
import { OutboundError, createOutboundClient } from './outbound-client';

export interface InternalResponse {
  status: number;
  data: unknown;
}

/**
 * Another service's internal API (ARCHITECTURE §1): every call carries the internal secret, has a
 * timeout and a breaker, and an unreachable service is `503 dependency_unavailable`.
 */
export function createInternalClient(options: {
  service: string;
  baseURL: string;
  internalSecret: string;
  logger: Logger;
  timeoutMs?: number;
}) {
  const client = createOutboundClient({
    name: options.service,
    baseURL: options.baseURL,
    timeoutMs: options.timeoutMs ?? 5_000,
    logger: options.logger,
    // An answer, even a 5xx about one organization's send, is not the service being down.
    countsAsFailure: () => false,
  });

  async function request(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<InternalResponse> {
    try {
      const response = await client.request({
        method,
        url: path,
        ...(body === undefined ? {} : { data: body }),
        headers: { [INTERNAL_SECRET_HEADER]: options.internalSecret, ...headers },
      });
      return { status: response.status, data: response.data };
    } catch (error) {
      if (error instanceof OutboundError) {
        throw new AppError(
          'dependency_unavailable',
          `The ${options.service} service is unavailable`,
          {
            cause: error,
          },
        );
      }
      throw error;
    }
  }

  return {
    post: (path: string, body: unknown, headers?: Record<string, string>) =>
      request('POST', path, body, headers),
    get: (path: string, headers?: Record<string, string>) =>
      request('GET', path, undefined, headers),
    /** A 4xx of the other service passed on as it was answered (a quota error stays one). */
    refusal(response: InternalResponse): AppError {
      const body = (response.data ?? {}) as { code?: string; message?: string };
      if (
        response.status >= 400 &&
        response.status < 500 &&
        body.code &&
        body.code in ERROR_CODES
      ) {
        return new AppError(body.code as ErrorCode, body.message ?? 'Refused', {
          httpStatus: response.status,
        });
      }
      return new AppError(
        'dependency_unavailable',
        `The ${options.service} service answered ${response.status}`,
      );
    },
    shutdown: () => client.shutdown(),
  };
}

export type InternalClient = ReturnType<typeof createInternalClient>;
