import type { Channel, ChannelModel, ConsumeMessage, Options } from 'amqplib';
import type { Logger } from 'pino';
import {
  CONSUMER_RETRY_DELAY_MS,
  delayQueueArguments,
  parkingQueueArguments,
} from '@switchboard/contracts';
import { CoalescedAcks } from './coalesced-acks';
import { decideOutcome, type Outcome } from './decide-outcome';
import {
  ATTEMPTS_HEADER,
  POSTPONED_HEADER,
  attemptsMade,
  forwardedProperties,
  originalRoutingKey,
  postponementsMade,
} from './message-properties';
import type { BrokerEvents, ConsumeOptions, MessageHandler, MessageOutcome } from './types';
import { SpanKind, SpanStatusCode, contextFromHeaders, inSpan } from '../trace-context';
import type { Span } from '@opentelemetry/api';

export interface ConsumerDeps {
  logger: Logger;
  /** Publishes to the default exchange through the broker's confirm channel; resolves once confirmed. */
  publish(queue: string, content: Buffer, properties: Options.Publish): Promise<void>;
  report(
    event: Exclude<keyof BrokerEvents, 'connected' | 'disconnected'>,
    outcome: MessageOutcome,
  ): void;
  /** The channel closed under an active subscription while the connection stayed up. */
  onChannelLost(consumer: Subscription): void;
}

/** What the broker needs from a consumer, whatever its message type. */
export interface Subscription {
  readonly queue: string;
  readonly isCancelled: boolean;
  subscribe(connection: ChannelModel): Promise<void>;
  cancel(): Promise<void>;
  inFlightWork(): Promise<void>[];
  close(): Promise<void>;
}

/**
 * One queue's subscription, on its own channel (so its prefetch and any channel error stay its
 * own), with its `*.retry` and `*.dead` queues. Every delivery ends acked, or forwarded to one of
 * those queues and then acked, or — when forwarding fails — unacked, for redelivery.
 */
export class Consumer<T> implements Subscription {
  readonly retryQueue: string;
  readonly deadQueue: string;
  private channel: Channel | undefined;
  private acks: CoalescedAcks | undefined;
  private consumerTag: string | undefined;
  private cancelled = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly options: Required<ConsumeOptions<T>>;

  constructor(
    readonly queue: string,
    private readonly handler: MessageHandler<T>,
    options: ConsumeOptions<T>,
    private readonly deps: ConsumerDeps,
  ) {
    this.options = {
      ...options,
      maxAttempts: options.maxAttempts ?? 5,
      retryDelayMs: options.retryDelayMs ?? CONSUMER_RETRY_DELAY_MS,
      maxPostponements: options.maxPostponements ?? 30,
    };
    const { prefetch, maxAttempts, retryDelayMs } = this.options;
    const atLeast = (n: number, min: number) => Number.isInteger(n) && n >= min;
    if (!atLeast(prefetch, 1) || !atLeast(maxAttempts, 1) || !atLeast(retryDelayMs, 0)) {
      throw new RangeError('prefetch and maxAttempts must be integers >= 1, retryDelayMs >= 0');
    }
    this.retryQueue = `${queue}.retry`;
    this.deadQueue = `${queue}.dead`;
  }

  get isCancelled(): boolean {
    return this.cancelled;
  }

  async subscribe(connection: ChannelModel): Promise<void> {
    if (this.channel || this.cancelled) return;
    const channel = await connection.createChannel();
    channel.on('error', (error: Error) =>
      this.deps.logger.warn({ err: error, queue: this.queue }, 'consumer channel error'),
    );
    channel.on('close', () => this.onChannelClosed(channel));
    this.channel = channel;
    const acks = new CoalescedAcks(channel, (error) =>
      this.deps.logger.warn({ err: error, queue: this.queue }, 'ack failed; redelivery follows'),
    );
    this.acks = acks;
    this.consumerTag = undefined;
    try {
      // The same arguments as the shared topology's, or RabbitMQ refuses the declaration.
      await channel.assertQueue(this.deadQueue, {
        durable: true,
        arguments: parkingQueueArguments(),
      });
      await channel.assertQueue(this.retryQueue, {
        durable: true,
        arguments: delayQueueArguments(this.options.retryDelayMs, this.queue),
      });
      await channel.prefetch(this.options.prefetch);
      const { consumerTag } = await channel.consume(this.queue, (message) =>
        this.receive(channel, acks, message),
      );
      this.consumerTag = consumerTag;
      if (this.cancelled) await channel.cancel(consumerTag);
    } catch (error) {
      this.channel = undefined;
      await channel.close().catch(() => undefined);
      throw error;
    }
    this.deps.logger.info({ queue: this.queue, prefetch: this.options.prefetch }, 'consuming');
  }

  /** Stops new deliveries; those already received still finish on the open channel. */
  async cancel(): Promise<void> {
    this.cancelled = true;
    const { channel, consumerTag } = this;
    if (channel && consumerTag) {
      await channel.cancel(consumerTag).catch((error: unknown) => {
        this.deps.logger.warn({ err: error, queue: this.queue }, 'consumer cancel failed');
      });
    }
  }

  inFlightWork(): Promise<void>[] {
    return [...this.inFlight];
  }

  async close(): Promise<void> {
    const channel = this.channel;
    this.channel = undefined;
    this.acks?.flush();
    await channel?.close().catch(() => undefined);
  }

  // Deferred, so that when the whole connection closes (channels first) the broker sees that first.
  private onChannelClosed(channel: Channel): void {
    if (this.channel !== channel) return;
    const wasConsuming = this.consumerTag !== undefined;
    this.channel = undefined;
    this.consumerTag = undefined;
    if (wasConsuming && !this.cancelled) setImmediate(() => this.deps.onChannelLost(this));
  }

  private receive(channel: Channel, acks: CoalescedAcks, message: ConsumeMessage | null): void {
    if (message === null) {
      // The broker cancelled us (e.g. the queue was deleted): close, and resubscribe after a pause.
      this.deps.logger.warn({ queue: this.queue }, 'consumer cancelled by the broker');
      void channel.close().catch(() => undefined);
      return;
    }
    acks.received(message);
    const work: Promise<void> = this.settle(channel, acks, message)
      .catch((error: unknown) => {
        this.deps.logger.error({ err: error, queue: this.queue }, 'message left unsettled');
      })
      .finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
  }

  /**
   * Handles one delivery in a consumer span that continues the trace its publisher put in the
   * headers (a retried copy keeps them, so every attempt joins the same trace).
   */
  private settle(channel: Channel, acks: CoalescedAcks, message: ConsumeMessage): Promise<void> {
    const attributes: Record<string, string | number> = {
      'messaging.system': 'rabbitmq',
      'messaging.operation.type': 'process',
      'messaging.destination.name': this.queue,
      'messaging.rabbitmq.destination.routing_key': originalRoutingKey(message),
    };
    if (typeof message.properties.messageId === 'string') {
      attributes['messaging.message.id'] = message.properties.messageId;
    }
    return inSpan(
      `${this.queue} process`,
      {
        kind: SpanKind.CONSUMER,
        parent: contextFromHeaders(message.properties.headers ?? {}),
        attributes,
      },
      (span) => this.settleIn(span, channel, acks, message),
    );
  }

  private async settleIn(
    span: Span,
    channel: Channel,
    acks: CoalescedAcks,
    message: ConsumeMessage,
  ): Promise<void> {
    const attempt = attemptsMade(message) + 1;
    const postponed = postponementsMade(message);
    const messageId: unknown = message.properties.messageId;
    const report: MessageOutcome = {
      queue: this.queue,
      messageId: String(messageId ?? ''),
      attempt,
    };
    const outcome: Outcome =
      typeof messageId === 'string' && messageId !== ''
        ? await decideOutcome(message.content, {
            schema: this.options.schema,
            attempt,
            maxAttempts: this.options.maxAttempts,
            postponed,
            maxPostponements: this.options.maxPostponements,
            handle: (body) =>
              this.handler(body, {
                messageId,
                headers: message.properties.headers ?? {},
                routingKey: originalRoutingKey(message),
                redelivered: message.fields.redelivered,
                attempt,
              }),
          })
        : { action: 'park', reason: 'missing messageId' };
    // Made only for a message that is not simply acked: a child logger per message costs.
    const log = () =>
      this.deps.logger.child({ queue: this.queue, messageId: report.messageId, attempt });
    span.setAttribute('messaging.rabbitmq.attempt', attempt);
    if (outcome.action !== 'ack') {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: `${outcome.action}: ${outcome.reason}`,
      });
    }

    if (outcome.action === 'ack') {
      if (this.ack(channel, acks, message)) this.deps.report('message:acked', report);
      return;
    }
    if (outcome.action === 'retry') {
      log().warn({ err: outcome.error, reason: outcome.reason }, 'message failed; retrying');
      const headers = outcome.postpone
        ? { [ATTEMPTS_HEADER]: attempt - 1, [POSTPONED_HEADER]: postponed + 1 }
        : { [ATTEMPTS_HEADER]: attempt };
      if (await this.forward(channel, acks, message, this.retryQueue, headers, log())) {
        this.deps.report('message:retried', { ...report, reason: outcome.reason });
      }
      return;
    }
    log().error({ err: outcome.error, reason: outcome.reason }, 'parking message');
    const headers = {
      'x-dead-reason': outcome.reason,
      'x-dead-queue': this.queue,
      [ATTEMPTS_HEADER]: attempt,
      'x-dead-at': new Date().toISOString(),
    };
    if (await this.forward(channel, acks, message, this.deadQueue, headers, log())) {
      this.deps.report('message:parked', { ...report, reason: outcome.reason });
    }
  }

  /** Copies the message to `queue`, then acks it; on any failure leaves it unacked, never dropped. */
  private async forward(
    channel: Channel,
    acks: CoalescedAcks,
    message: ConsumeMessage,
    queue: string,
    headers: Record<string, unknown>,
    log: Logger,
  ): Promise<boolean> {
    if (this.channel !== channel) {
      log.warn('channel lost before the message was settled; it will be redelivered');
      return false;
    }
    try {
      await this.deps.publish(queue, message.content, forwardedProperties(message, headers));
    } catch (error) {
      log.error({ err: error, to: queue }, 'could not forward the message; left unacked');
      return false;
    }
    return this.ack(channel, acks, message);
  }

  /** Asks for the ack (sent with the others of this turn); false when the channel is gone. */
  private ack(channel: Channel, acks: CoalescedAcks, message: ConsumeMessage): boolean {
    if (this.channel !== channel) return false;
    acks.ack(message);
    return true;
  }
}
