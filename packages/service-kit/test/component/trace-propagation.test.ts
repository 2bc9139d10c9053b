import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { connect, type ChannelModel, type GetMessage } from 'amqplib';
import { z } from 'zod';
import { context, propagation, trace, type SpanContext } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { BrokerEvent } from '@switchboard/contracts';
import { Broker, type MessageHandler } from '../../src/broker';
import { createLogger } from '../../src/logger';
import {
  createEventRelay,
  newOutbox,
  pendingInOrder,
  type OutboxFields,
  type OutboxSource,
} from '../../src/outbox';
import {
  WithholdingPropagator,
  currentTraceCarrier,
  withheldTraceContext,
} from '../../src/trace-context';
import { isolatedAmqpUrl } from '../../../../test/support/test-infra';

// The services' setup (telemetry.ts) in miniature: spans kept in memory instead of exported.
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
trace.setGlobalTracerProvider(provider);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new WithholdingPropagator(new W3CTraceContextPropagator()));
const tracer = trace.getTracer('trace-propagation-test');

const logLines: string[] = [];
const logger = createLogger(
  'trace-test',
  'info',
  new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  }),
);

const EXCHANGE = 'test.trace';
const BodySchema = z.object({ n: z.number() });

let amqp: { url: string; drop: () => Promise<void> };
let broker: Broker;
let tap: ChannelModel;

beforeAll(async () => {
  amqp = await isolatedAmqpUrl('kittrace');
  broker = new Broker({ url: amqp.url, connectionName: 'trace-test', logger });
  broker.onConnect(async (channel) => {
    await channel.assertExchange(EXCHANGE, 'topic', { durable: true });
    for (const queue of ['trace.handled', 'trace.relayed']) {
      await channel.assertQueue(queue, { durable: true });
      await channel.bindQueue(queue, EXCHANGE, `${queue}.#`);
    }
  });
  await broker.start();
  tap = await connect(amqp.url);
});

afterAll(async () => {
  await broker?.stop();
  await tap?.close();
  await amqp?.drop();
  await provider.shutdown();
});

beforeEach(() => exporter.reset());

/** Runs `fn` in a new root span; resolves with its result and the span's context. */
async function inRootSpan<T>(fn: () => Promise<T>): Promise<{ result: T; span: SpanContext }> {
  return tracer.startActiveSpan('test root', { root: true }, async (span) => {
    try {
      return { result: await fn(), span: span.spanContext() };
    } finally {
      span.end();
    }
  });
}

const traceIdOf = (traceparent: unknown) => String(traceparent).split('-')[1];

/** The next message on `queue`, read by a plain amqplib channel (what is on the wire). */
async function nextOnWire(queue: string): Promise<GetMessage> {
  const channel = await tap.createChannel();
  try {
    for (let tries = 0; tries < 50; tries++) {
      const message = await channel.get(queue, { noAck: true });
      if (message) return message;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`nothing arrived on ${queue}`);
  } finally {
    await channel.close();
  }
}

describe('trace context through the broker', () => {
  test('when a message is published inside a span, then every attempt of its handler runs in a consumer span of that trace, and its log lines name the trace', async () => {
    const seen: { traceId: string; parentSpanId: string | undefined; attempt: number }[] = [];
    let done!: () => void;
    const handled = new Promise<void>((resolve) => (done = resolve));
    const handler: MessageHandler<z.infer<typeof BodySchema>> = async (_body, message) => {
      const active = trace.getActiveSpan()!;
      seen.push({
        traceId: active.spanContext().traceId,
        parentSpanId: (active as unknown as { parentSpanContext?: SpanContext }).parentSpanContext
          ?.spanId,
        attempt: message.attempt,
      });
      logger.info({ attempt: message.attempt }, 'handling a traced message');
      // The first attempt fails, so the retried copy has to carry the trace as well.
      if (message.attempt === 1) throw new Error('not yet');
      done();
    };
    await broker.consume('trace.handled', handler, {
      schema: BodySchema,
      prefetch: 1,
      retryDelayMs: 50,
    });

    const { span: root } = await inRootSpan(() =>
      broker.publish(EXCHANGE, 'trace.handled.one', { n: 1 }, { messageId: randomUUID() }),
    );
    await handled;

    const producer = exporter
      .getFinishedSpans()
      .find((span) => span.name === `${EXCHANGE} publish`)!;
    expect(producer.spanContext().traceId).toBe(root.traceId);
    expect(seen).toEqual([
      { traceId: root.traceId, parentSpanId: producer.spanContext().spanId, attempt: 1 },
      { traceId: root.traceId, parentSpanId: producer.spanContext().spanId, attempt: 2 },
    ]);
    const handlerLines = logLines
      .filter((line) => line.includes('handling a traced message'))
      .map((line) => JSON.parse(line) as { trace_id?: string; span_id?: string });
    expect(handlerLines).toHaveLength(2);
    for (const line of handlerLines) expect(line.trace_id).toBe(root.traceId);
  });

  test('when an event written inside a span is relayed later with no span active, then it is published in the trace of the write, without the stored context in its body', async () => {
    const event: BrokerEvent = {
      id: randomUUID(),
      event: 'account_status_updated',
      timestamp: new Date(Date.now() - 60_000).toISOString(),
      company_id: 7,
      data: { decision: 'APPROVED', account_status: 'active', company_id: 7 },
    };
    // The write: the event stored with its record, inside the span of the request that made it.
    const { result: record, span: write } = await inRootSpan(async () => ({
      _id: 'record-1',
      ...newOutbox([event]),
    }));
    expect(record.pending_events[event.id]!.trace_context?.traceparent).toContain(write.traceId);

    const source: OutboxSource = {
      name: 'records',
      withPending: async () => [{ _id: record._id, events: pendingInOrder(record) }],
      pendingOf: async () => pendingInOrder(record),
      clear: async (_id, ids) => {
        for (const id of ids) delete (record as OutboxFields).pending_events[id];
      },
    };
    const relay = createEventRelay({
      sources: [source],
      publish: (pending) =>
        broker.publish(EXCHANGE, 'trace.relayed.event', pending, { messageId: pending.id }),
      logger,
      sweepIntervalMs: 60_000,
      graceMs: 0,
    });
    // A sweep, as after a restart: nothing of the write's context is active any more.
    expect(trace.getActiveSpan()).toBeUndefined();
    await relay.sweep();

    const message = await nextOnWire('trace.relayed');
    expect(traceIdOf(message.properties.headers?.traceparent)).toBe(write.traceId);
    expect(JSON.parse(message.content.toString())).toEqual(event);
    expect(record.pending_events).toEqual({});
  });
});

describe('withheldTraceContext', () => {
  test('when a call is made inside withheldTraceContext, then no trace context is injected; outside, it is', async () => {
    await inRootSpan(async () => {
      expect(currentTraceCarrier()?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(withheldTraceContext(() => currentTraceCarrier())).toBeUndefined();
      // Only inside: what follows propagates again.
      expect(currentTraceCarrier()).toBeDefined();
    });
  });
});
