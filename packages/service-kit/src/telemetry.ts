import type * as SdkNode from '@opentelemetry/sdk-node';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as HttpInst from '@opentelemetry/instrumentation-http';
import type * as ExpressInst from '@opentelemetry/instrumentation-express';
import type * as MongooseInst from '@opentelemetry/instrumentation-mongoose';
import type * as Core from '@opentelemetry/core';
import { WithholdingPropagator } from './trace-context';

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
        ignoreIncomingRequestHook: (request) =>
          UNTRACED_PATHS.has((request.url ?? '').split('?')[0] ?? ''),
      }),
      new ExpressInstrumentation(),
      new MongooseInstrumentation(),
    ],
  });
  sdk.start();
  return true;
}

export async function stopTelemetry(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
