import { EventEmitter } from 'node:events';
import { connect, type Channel, type ChannelModel, type Options } from 'amqplib';
import type { Logger } from 'pino';
import { DEFAULT_RECONNECT_DELAY_MS, reconnectDelayMs, type DelayRange } from './backoff';
import { ConfirmPublisher, jsonMessage } from './confirm-publisher';
import { Consumer, type Subscription } from './consumer';
import { PublishError } from './errors';
import { parseBrokerUrls } from '../config';
import { WakeablePauses, withTimeout } from './timing';
import { SpanKind, currentTraceCarrier, inSpan } from '../trace-context';
import type {
  BrokerEvents,
  BrokerOptions,
  ConsumeOptions,
  MessageHandler,
  PublishOptions,
} from './types';

type State = 'idle' | 'connecting' | 'connected' | 'stopping' | 'stopped';

const CONNECT_TIMEOUT_MS = 10_000;
const ignore = () => undefined;

/** host:port/vhost of an AMQP URL, for logs (never its credentials). */
function describeUrl(url: string): string {
  const { host, pathname } = new URL(url);
  return `${host}${pathname === '' ? '/' : pathname}`;
}

/**
 * The one RabbitMQ client a service holds: a connection that comes back by itself, a confirm
 * channel for publishing, and consumers that decide every outcome and re-subscribe after a
 * reconnect. Emits `connected`/`disconnected` and `message:acked|retried|parked`.
 */
export class Broker extends EventEmitter<BrokerEvents> {
  private readonly logger: Logger;
  private readonly delayRange: DelayRange;
  private readonly publishTimeoutMs: number;
  private readonly setups: Array<(channel: Channel, connection: ChannelModel) => Promise<void>> =
    [];
  private readonly consumers = new Set<Subscription>();
  private readonly sleepers = new WakeablePauses();
  private readonly waiters = new WakeablePauses();
  private state: State = 'idle';
  private connection: ChannelModel | undefined;
  private publisher: ConfirmPublisher | undefined;
  private connecting: Promise<void> | undefined;
  private cancelling: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private readonly urls: string[];
  /** The address tried first on the next connection attempt. */
  private nextUrl: number;

  constructor(private readonly options: BrokerOptions) {
    super();
    const urls = parseBrokerUrls(options.url);
    if (!urls) throw new RangeError('url must be amqp(s) URLs, separated by commas');
    this.urls = urls;
    this.nextUrl = Math.floor(Math.random() * urls.length);
    this.delayRange = options.reconnectDelayMs ?? DEFAULT_RECONNECT_DELAY_MS;
    if (!(this.delayRange.min > 0 && this.delayRange.max >= this.delayRange.min)) {
      throw new RangeError('reconnectDelayMs needs 0 < min <= max');
    }
    this.publishTimeoutMs = options.publishTimeoutMs ?? 5_000;
    this.logger = options.logger.child({ component: 'broker', connection: options.connectionName });
  }

  /**
   * Topology setup (assertExchange/assertQueue/bindQueue), run again on every connection; a setup
   * that may fail a declaration on purpose opens channels of its own on `connection`.
   */
  onConnect(setup: (channel: Channel, connection: ChannelModel) => Promise<void>): void {
    if (this.state !== 'idle') throw new Error('register onConnect setups before start()');
    this.setups.push(setup);
  }

  /**
   * Connects, retrying with backoff; resolves once connected. Gives up, stops and rejects after
   * `startTimeoutMs` (default 30 s), so a service that cannot reach the broker fails at start.
   */
  async start(): Promise<void> {
    if (this.state !== 'idle') throw new Error(`broker already ${this.state}`);
    this.state = 'connecting';
    this.connecting = this.keepConnecting(0);
    const timeoutMs = this.options.startTimeoutMs ?? 30_000;
    await this.waitUntil(() => this.state !== 'connecting', Date.now() + timeoutMs);
    if (this.isConnected()) return;
    if (this.isStopRequested()) throw new Error('broker stopped before it connected');
    await this.stop();
    throw new Error(`could not connect to the broker within ${timeoutMs} ms`);
  }

  isConnected(): boolean {
    return this.state === 'connected' && this.publisher?.isOpen === true;
  }

  /**
   * Publishes JSON, persistent and mandatory; resolves once the broker has confirmed it and
   * rejects with a PublishError when it is unroutable, not confirmed, or no connection comes
   * back within `publishTimeoutMs`. The publish is a producer span of the active trace, whose
   * context travels in the message's headers (`traceparent`) to the consumer.
   */
  publish(
    exchange: string,
    routingKey: string,
    body: unknown,
    options: PublishOptions,
  ): Promise<void> {
    const attributes = {
      'messaging.system': 'rabbitmq',
      'messaging.operation.type': 'send',
      'messaging.destination.name': exchange || '(default)',
      'messaging.rabbitmq.destination.routing_key': routingKey,
      'messaging.message.id': options.messageId,
    };
    return inSpan(
      `${exchange || '(default)'} publish`,
      { kind: SpanKind.PRODUCER, attributes },
      async () => {
        const headers = { ...options.headers, ...currentTraceCarrier() };
        const { content, properties } = jsonMessage(body, { ...options, headers });
        await this.publishConfirmed(exchange, routingKey, content, properties);
      },
    );
  }

  /**
   * Consumes `queue` (declared by an onConnect setup), declaring its `<queue>.retry` and
   * `<queue>.dead`. Subscribes now when connected, otherwise as soon as the connection is made.
   */
  async consume<T>(
    queue: string,
    handler: MessageHandler<T>,
    options: ConsumeOptions<T>,
  ): Promise<void> {
    if (this.isStopRequested() || this.cancelling) throw new Error('broker is stopping');
    const consumer = new Consumer(queue, handler, options, {
      logger: this.logger,
      publish: (target, content, properties) =>
        this.publishConfirmed('', target, content, properties),
      report: (event, outcome) => this.emit(event, outcome),
      onChannelLost: (lost) => void this.resubscribe(lost),
    });
    this.consumers.add(consumer);
    const connection = this.connection;
    if (this.state !== 'connected' || !connection) return;
    try {
      await consumer.subscribe(connection);
    } catch (error) {
      // Only when the connection is still up is this the caller's problem (e.g. no such queue).
      if (this.connection !== connection) return;
      this.consumers.delete(consumer);
      throw error;
    }
  }

  /** Stops deliveries and waits (up to `drainTimeoutMs`) for the handlers already running. */
  cancelConsumers(): Promise<void> {
    this.cancelling ??= this.cancelAndDrain();
    return this.cancelling;
  }

  /** Ordered shutdown: consumers cancel, in-flight handlers finish, channels and connection close. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private isStopRequested(): boolean {
    return this.state === 'stopping' || this.state === 'stopped';
  }

  private async shutdown(): Promise<void> {
    const wasStarted = this.state !== 'idle';
    this.state = 'stopping';
    this.sleepers.wakeAll();
    this.waiters.wakeAll();
    await this.cancelConsumers();
    await this.connecting;
    await Promise.all([...this.consumers].map((consumer) => consumer.close()));
    const { publisher, connection } = this;
    this.publisher = undefined;
    this.connection = undefined;
    await publisher?.channel.close().catch(ignore);
    await connection?.close().catch(ignore);
    this.state = 'stopped';
    if (wasStarted) this.logger.info('broker stopped');
  }

  private async cancelAndDrain(): Promise<void> {
    const consumers = [...this.consumers];
    await Promise.all(consumers.map((consumer) => consumer.cancel()));
    const work = consumers.flatMap((consumer) => consumer.inFlightWork());
    if (work.length === 0) return;
    const timeoutMs = this.options.drainTimeoutMs ?? 10_000;
    this.logger.info({ inFlight: work.length }, 'waiting for in-flight messages');
    const drained = await withTimeout(
      Promise.all(work).then(() => true),
      timeoutMs,
      () => false,
    );
    if (!drained) {
      this.logger.warn({ timeoutMs }, 'in-flight messages unfinished; they will be redelivered');
    }
  }

  private async keepConnecting(firstAttempt: number): Promise<void> {
    for (let attempt = firstAttempt; !this.isStopRequested(); attempt++) {
      if (attempt > 0) {
        const delayMs = reconnectDelayMs(attempt, this.delayRange);
        this.logger.info({ attempt, delayMs }, 'broker reconnect scheduled');
        await this.sleepers.pause(delayMs);
        if (this.isStopRequested()) return;
      }
      try {
        await this.connectOnce();
        return;
      } catch (error) {
        this.logger.warn({ err: error, attempt }, 'broker connection attempt failed');
      }
    }
  }

  /** Connects to the first address that answers, from `nextUrl` on, each one tried once. */
  private async openConnection(): Promise<ChannelModel> {
    let lastError: unknown;
    for (let tried = 0; tried < this.urls.length; tried++) {
      const index = (this.nextUrl + tried) % this.urls.length;
      const node = describeUrl(this.urls[index]!);
      this.logger.info({ node }, 'broker connecting');
      try {
        const connection = await connect(this.urls[index]!, {
          clientProperties: { connection_name: this.options.connectionName },
          timeout: CONNECT_TIMEOUT_MS,
        });
        // When this connection is lost, the next attempt starts with the next node.
        this.nextUrl = (index + 1) % this.urls.length;
        this.logger.info({ node }, 'broker node reached');
        return connection;
      } catch (error) {
        lastError = error;
        if (this.urls.length > 1) this.logger.warn({ err: error, node }, 'broker node unreachable');
        if (this.isStopRequested()) break;
      }
    }
    throw lastError;
  }

  private async connectOnce(): Promise<void> {
    const connection = await this.openConnection();
    connection.on('error', (error: Error) =>
      this.logger.warn({ err: error }, 'broker connection error'),
    );
    connection.on('close', (error?: Error) => this.onConnectionClosed(connection, error));
    connection.on('blocked', (reason: string) => this.logger.warn({ reason }, 'broker blocked us'));
    connection.on('unblocked', () => this.logger.info('broker unblocked us'));
    this.connection = connection;
    try {
      if (this.isStopRequested()) throw new Error('broker stopped while connecting');
      await this.runSetups(connection);
      this.publisher = await this.openPublisher(connection);
      // A Set iterates over consumers added while we await, so none is missed.
      for (const consumer of this.consumers) await consumer.subscribe(connection);
      if (this.connection !== connection || !this.publisher.isOpen) {
        throw new Error('connection or publish channel lost while setting up');
      }
      if (this.isStopRequested()) throw new Error('broker stopped while connecting');
    } catch (error) {
      this.connection = undefined;
      this.publisher = undefined;
      await connection.close().catch(ignore);
      throw error;
    }
    this.state = 'connected';
    this.logger.info('broker connected');
    this.waiters.wakeAll();
    this.emit('connected');
  }

  private async runSetups(connection: ChannelModel): Promise<void> {
    if (this.setups.length === 0) return;
    const channel = await connection.createChannel();
    channel.on('error', (error: Error) =>
      this.logger.error({ err: error }, 'broker topology setup failed'),
    );
    for (const setup of this.setups) await setup(channel, connection);
    await channel.close();
  }

  private async openPublisher(connection: ChannelModel): Promise<ConfirmPublisher> {
    const channel = await connection.createConfirmChannel();
    channel.on('error', (error: Error) =>
      this.logger.warn({ err: error }, 'broker publish channel error'),
    );
    const publisher = new ConfirmPublisher(channel);
    // Deferred, so that when the whole connection closes (channels first) that is handled first.
    channel.on('close', () => setImmediate(() => this.onPublisherClosed(publisher)));
    return publisher;
  }

  private onConnectionClosed(connection: ChannelModel, error: Error | undefined): void {
    if (this.connection !== connection) return; // closed by us, or an attempt already given up
    this.connection = undefined;
    this.publisher = undefined;
    if (this.state !== 'connected') return; // connectOnce notices; stop() needs no reconnect
    this.state = 'connecting';
    this.logger.warn({ err: error }, 'broker connection lost');
    this.emit('disconnected', { error });
    this.connecting = this.keepConnecting(1);
  }

  /** A publish to a missing exchange closes the channel; a new one keeps the connection. */
  private onPublisherClosed(publisher: ConfirmPublisher): void {
    const connection = this.connection;
    if (this.publisher !== publisher || !connection) return;
    this.publisher = undefined;
    if (this.state === 'connecting') return;
    this.logger.warn('broker publish channel closed; reopening it');
    this.openPublisher(connection).then(
      (reopened) => {
        if (this.connection === connection) {
          this.publisher = reopened;
          this.waiters.wakeAll();
        } else {
          reopened.channel.close().catch(ignore);
        }
      },
      (error: unknown) => {
        this.logger.error({ err: error }, 'cannot reopen the publish channel; reconnecting');
        void connection.close().catch(ignore);
      },
    );
  }

  private async resubscribe(consumer: Subscription): Promise<void> {
    if (this.state !== 'connected') return; // the connection went too: reconnecting re-subscribes
    this.logger.warn({ queue: consumer.queue }, 'consumer channel closed; resubscribing');
    for (let attempt = 1; ; attempt++) {
      await this.sleepers.pause(reconnectDelayMs(attempt, this.delayRange));
      const connection = this.connection;
      // Without a connection, the reconnect re-subscribes every consumer itself.
      if (!connection || this.state !== 'connected' || consumer.isCancelled) return;
      try {
        await consumer.subscribe(connection);
        return;
      } catch (error) {
        this.logger.warn({ err: error, queue: consumer.queue, attempt }, 'resubscribe failed');
      }
    }
  }

  private async publishConfirmed(
    exchange: string,
    routingKey: string,
    content: Buffer,
    properties: Options.Publish,
  ): Promise<void> {
    const deadline = Date.now() + this.publishTimeoutMs;
    const openPublisher = () => (this.publisher?.isOpen ? this.publisher : undefined);
    await this.waitUntil(() => openPublisher() !== undefined || this.isStopRequested(), deadline);
    const publisher = openPublisher();
    if (!publisher) {
      throw this.isStopRequested()
        ? new PublishError('stopped', 'the broker client is stopping')
        : new PublishError('not_connected', `not connected within ${this.publishTimeoutMs} ms`);
    }
    await withTimeout(
      publisher.publish(exchange, routingKey, content, properties),
      deadline - Date.now(),
      () => new PublishError('timeout', `no confirm within ${this.publishTimeoutMs} ms`),
    );
  }

  private async waitUntil(condition: () => boolean, deadline: number): Promise<void> {
    while (!condition() && Date.now() < deadline) await this.waiters.pause(deadline - Date.now());
  }
}
