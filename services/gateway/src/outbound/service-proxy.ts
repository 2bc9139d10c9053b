import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import {
  INTERNAL_SECRET_HEADER,
  ORG_HEADERS,
  REQUEST_ID_HEADER,
  type ServiceName,
} from '@switchboard/contracts';
import {
  AppError,
  OutboundError,
  createOutboundClient,
  requestId,
  type Logger,
  type OutboundClient,
} from '@switchboard/service-kit';
import type { Organization } from '../data-access/organization-store';

export type OwnerService = Exclude<ServiceName, 'gateway'>;

/** Request headers that mean something to the owning service; everything else stays at the edge. */
const FORWARDED_HEADERS = [
  'accept',
  'content-type',
  'content-length',
  'idempotency-key',
  'traceparent',
  'tracestate',
  'user-agent',
  'x-hub-signature-256',
];
const RETURNED_HEADERS = ['content-type', 'retry-after', 'idempotent-replayed'];

export interface ServiceProxyOptions {
  urls: Record<OwnerService, string>;
  internalSecret: string;
  timeoutMs: number;
  logger: Logger;
}

/**
 * Forwards a request to the service that owns it, stating the organization in trusted headers.
 * A parsed body is re-sent as JSON without the token; an unparsed one (multipart, signed
 * provider webhooks) is streamed through byte for byte.
 */
export function createServiceProxy(options: ServiceProxyOptions) {
  const clients = new Map<OwnerService, OutboundClient>();
  for (const [service, baseURL] of Object.entries(options.urls) as [OwnerService, string][]) {
    clients.set(
      service,
      createOutboundClient({
        name: service,
        baseURL,
        timeoutMs: options.timeoutMs,
        logger: options.logger,
        // Any answer of an owner is passed on: messaging's 502/503 is one channel's provider
        // failing, and counting it would open this breaker for every organization's calls.
        countsAsFailure: () => false,
      }),
    );
  }

  return {
    async forward(
      service: OwnerService,
      req: Request,
      res: Response,
      organization?: Organization,
      path = new URL(req.originalUrl, 'http://gateway').pathname,
    ): Promise<void> {
      const client = clients.get(service)!;
      const url = new URL(req.originalUrl, 'http://gateway');
      url.searchParams.delete('token');

      const headers: Record<string, string> = {
        [INTERNAL_SECRET_HEADER]: options.internalSecret,
        [REQUEST_ID_HEADER]: requestId(res),
      };
      for (const name of FORWARDED_HEADERS) {
        const value = req.header(name);
        if (value !== undefined) headers[name] = value;
      }
      if (organization) {
        headers[ORG_HEADERS.companyId] = String(organization.company_id);
        headers[ORG_HEADERS.plan] = organization.plan;
        headers[ORG_HEADERS.planStartedAt] = organization.plan_started_at.toISOString();
      }

      let data: unknown;
      if (isParsedBody(req.body)) {
        const { token: _token, ...rest } = req.body as Record<string, unknown>;
        data = JSON.stringify(rest);
        headers['content-type'] = 'application/json';
        delete headers['content-length'];
      } else if (hasBody(req)) {
        data = req;
      }

      try {
        const answer = await client.request<Readable>({
          method: req.method,
          url: path + url.search,
          headers,
          data,
          // Streamed through, so a long listing is never held whole in the gateway's memory.
          responseType: 'stream',
          maxBodyLength: Infinity,
        });
        res.status(answer.status);
        for (const name of RETURNED_HEADERS) {
          const value = answer.headers[name];
          if (typeof value === 'string') res.setHeader(name, value);
        }
        await pipeline(answer.data, res);
      } catch (error) {
        if (error instanceof OutboundError) {
          throw new AppError('dependency_unavailable', `The ${service} service is unavailable`, {
            cause: error,
          });
        }
        throw error;
      }
    },

    /** A call of the gateway's own to an internal route (`/internal/*`) of another service. */
    async call<T>(
      service: OwnerService,
      config: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; data?: unknown },
      requestIdValue?: string,
    ): Promise<{ status: number; data: T }> {
      const headers: Record<string, string> = {
        [INTERNAL_SECRET_HEADER]: options.internalSecret,
      };
      if (requestIdValue) headers[REQUEST_ID_HEADER] = requestIdValue;
      try {
        const answer = await clients.get(service)!.request<T>({ ...config, headers });
        return { status: answer.status, data: answer.data };
      } catch (error) {
        if (error instanceof OutboundError) {
          throw new AppError('dependency_unavailable', `The ${service} service is unavailable`, {
            cause: error,
          });
        }
        throw error;
      }
    },

    shutdown(): void {
      for (const client of clients.values()) client.shutdown();
    },
  };
}

export type ServiceProxy = ReturnType<typeof createServiceProxy>;

function isParsedBody(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Buffer.isBuffer(body);
}

function hasBody(req: Request): boolean {
  return req.header('transfer-encoding') !== undefined || Number(req.header('content-length')) > 0;
}
