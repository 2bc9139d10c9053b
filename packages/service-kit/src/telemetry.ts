import type * as SdkNode from '@opentelemetry/sdk-node';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as HttpInst from '@opentelemetry/instrumentation-http';
import type * as ExpressInst from '@opentelemetry/instrumentation-express';
import type * as MongooseInst from '@opentelemetry/instrumentation-mongoose';
import type * as Core from '@opentelemetry/core';
import { WithholdingPropagator } from './trace-context';
import {
  SECRET_QUERY_PARAMS,
  hasSecretPath,
  redactPath,
  redactPathAndQuery,
} from './span-redaction';

let sdk: SdkNode.NodeSDK | undefined;

/** Probes and scrapes: a span each would bury the traces worth reading. */
const UNTRACED_PATHS = new Set(['/livez', '/readyz', '/metrics']);

/**
 * Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set: spans go to
 * `<endpoint>/v1/traces` as OTLP/HTTP JSON. Call it first in main, before the modules it
 * instruments (http, express, mongoose) are loaded. Broker publish and consume spans, and the
 * trace context in AMQP headers, come from the service kit's broker itself (trace-context.ts).
 * Metrics stay with Prometheus (`/metrics`) and logs with stdout: only traces are exported.
 */
export function startTelemetry(serviceName: string, env = process.env): boolean {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT || sdk) return Boolean(sdk);
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof SdkNode;
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof HttpInst;
  const { ExpressInstrumentation } =
    require('@opentelemetry/instrumentation-express') as typeof ExpressInst;
  const { MongooseInstrumentation } =
    require('@opentelemetry/instrumentation-mongoose') as typeof MongooseInst;
  const { CompositePropagator, W3CTraceContextPropagator, W3CBaggagePropagator } =
    require('@opentelemetry/core') as typeof Core;
  /* eslint-enable @typescript-eslint/no-require-imports */
  sdk = new NodeSDK({
    serviceName,
    traceExporter: new OTLPTraceExporter(),
    textMapPropagator: new WithholdingPropagator(
      new CompositePropagator({
        propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
      }),
    ),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has(pathOf(request.url)),
        // Credentials in URLs stay out of spans (span-redaction.ts).
        redactedQueryParamsServer: SECRET_QUERY_PARAMS,
        redactedQueryParams: SECRET_QUERY_PARAMS,
        startIncomingSpanHook: (request) => {
          const path = pathOf(request.url);
          return hasSecretPath(path) ? { 'url.path': redactPath(path) } : {};
        },
        startOutgoingSpanHook: (options) => {
          const path = options.path ?? '';
          if (!hasSecretPath(pathOf(path))) return {};
          const port = options.port ? `:${options.port}` : '';
          const host = options.hostname ?? options.host ?? '';
          const url = `${options.protocol ?? 'http:'}//${host}${port}${redactPathAndQuery(path)}`;
          return { 'url.full': url };
        },
      }),
      new ExpressInstrumentation(),
      // Queries of background polls (outbox sweeps, periodic jobs) would each be a trace of one span.
      new MongooseInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  return true;
}

const pathOf = (url: string | undefined) => (url ?? '').split('?')[0] ?? '';

export async function stopTelemetry(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
