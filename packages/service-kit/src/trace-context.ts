import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  createContextKey,
  isSpanContextValid,
  propagation,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
} from '@opentelemetry/api';

/**
 * Trace context as it travels outside a process: W3C `traceparent` (and `tracestate`), as in
 * HTTP and AMQP headers. Stored with an outbox event, so that its later publish joins the trace
 * of the write that made it.
 */
export type TraceCarrier = Record<string, string>;

/** Spans of the service kit itself (broker publish and consume). */
export const kitTracer = () => trace.getTracer('@switchboard/service-kit');

/** The active trace context as headers; undefined when there is none (tracing off). */
export function currentTraceCarrier(active: Context = context.active()): TraceCarrier | undefined {
  const carrier: TraceCarrier = {};
  propagation.inject(active, carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/** Runs `fn` in the trace context carried by `carrier` (none: a fresh root context). */
export function runInTraceContext<T>(carrier: TraceCarrier | undefined, fn: () => T): T {
  return context.with(carrier ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT, fn);
}

/** The context carried by message headers whose values may be buffers or numbers (AMQP). */
export function contextFromHeaders(headers: Record<string, unknown>): Context {
  return propagation.extract(ROOT_CONTEXT, headers, headerGetter);
}

const headerGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    if (typeof value === 'string') return value;
    return Buffer.isBuffer(value) ? value.toString('utf8') : undefined;
  },
};

/** `trace_id` and `span_id` of the active span, for log lines; empty without one. */
export function activeTraceFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/** Runs `fn` in a new span of `kind` under `parent`, ending it (with its error) when `fn` settles. */
export async function inSpan<T>(
  name: string,
  options: { kind: SpanKind; parent?: Context; attributes?: Record<string, string | number> },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = kitTracer().startSpan(
    name,
    { kind: options.kind, attributes: options.attributes },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
    throw error;
  } finally {
    span.end();
  }
}

export { SpanKind, SpanStatusCode };

const WITHHELD = createContextKey('switchboard.trace-context-withheld');

/**
 * Runs `fn` so that the HTTP calls it makes carry no trace context: for calls that leave
 * Switchboard (the provider, customer endpoints, customers' media URLs). Their client spans are
 * still recorded, in our trace; only the `traceparent` header stays home.
 */
export function withheldTraceContext<T>(fn: () => T): T {
  return context.with(context.active().setValue(WITHHELD, true), fn);
}

/** A propagator that injects nothing inside {@link withheldTraceContext}, and otherwise `inner`. */
export class WithholdingPropagator implements TextMapPropagator {
  constructor(private readonly inner: TextMapPropagator) {}

  inject(active: Context, carrier: unknown, setter: TextMapSetter): void {
    if (active.getValue(WITHHELD) === true) return;
    this.inner.inject(active, carrier, setter);
  }

  extract(active: Context, carrier: unknown, getter: TextMapGetter): Context {
    return this.inner.extract(active, carrier, getter);
  }

  fields(): string[] {
    return this.inner.fields();
  }
}
