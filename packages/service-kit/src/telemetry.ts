import type * as SdkNode from '@opentelemetry/sdk-node';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as HttpInst from '@opentelemetry/instrumentation-http';
import type * as ExpressInst from '@opentelemetry/instrumentation-express';
import type * as AmqplibInst from '@opentelemetry/instrumentation-amqplib';
import type * as MongooseInst from '@opentelemetry/instrumentation-mongoose';

let sdk: SdkNode.NodeSDK | undefined;

/**
 * Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set. Call it first in main,
 * before the modules it instruments (http, express, amqplib, mongoose) are loaded.
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
  const { AmqplibInstrumentation } =
    require('@opentelemetry/instrumentation-amqplib') as typeof AmqplibInst;
  const { MongooseInstrumentation } =
    require('@opentelemetry/instrumentation-mongoose') as typeof MongooseInst;
  /* eslint-enable @typescript-eslint/no-require-imports */
  sdk = new NodeSDK({
    serviceName,
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      new HttpInstrumentation(),
      new ExpressInstrumentation(),
      new AmqplibInstrumentation(),
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
