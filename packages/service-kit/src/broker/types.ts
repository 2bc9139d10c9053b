import type { Logger } from 'pino';
import type { ZodType } from 'zod';
import type { DelayRange } from './backoff';

export interface BrokerOptions {
  /**
   * One AMQP URL, or a cluster's nodes as a comma-separated list: the client connects to one
   * (a replica starts at a random one, which spreads replicas over the nodes) and, when it is
   * lost or refuses, tries the next.
   */
  url: string;
  /** Shown by RabbitMQ as the connection's client-provided name. */
  connectionName: string;
  logger: Logger;
  reconnectDelayMs?: DelayRange;
  /** How long a publish may wait for a connection and the broker's confirm. Default 5 s. */
  publishTimeoutMs?: number;
  /** start() rejects (and gives up) when no connection is made within this time. Default 30 s. */
  startTimeoutMs?: number;
  /** How long stopping waits for in-flight handlers. Default 10 s. */
  drainTimeoutMs?: number;
}

export interface PublishOptions {
  /** The event or command id; consumers deduplicate on it. */
  messageId: string;
  /** E.g. `traceparent`. */
  headers?: Record<string, unknown>;
  expiration?: string;
}

export interface MessageContext {
  messageId: string;
  headers: Record<string, unknown>;
  /** The routing key the message was first published with, also after a retry. */
  routingKey: string;
  redelivered: boolean;
  /** 1 on first delivery, counting this one. */
  attempt: number;
}

/** Resolve to ack; throw PermanentError to park; throw anything else to retry. */
export type MessageHandler<T> = (body: T, context: MessageContext) => Promise<void>;

export interface ConsumeOptions<T> {
  schema: ZodType<T>;
  prefetch: number;
  /** Attempts before a transiently failing message is parked. Default 5. */
  maxAttempts?: number;
  /** TTL of `<queue>.retry`. Default 1000. */
  /** Defaults to CONSUMER_RETRY_DELAY_MS, the TTL the shared topology gives every `.retry` queue. */
  retryDelayMs?: number;
  /** Retries a RetryLaterError may take without spending an attempt. Default 30. */
  maxPostponements?: number;
}

export interface MessageOutcome {
  queue: string;
  messageId: string;
  attempt: number;
  reason?: string;
}

export type BrokerEvents = {
  connected: [];
  disconnected: [{ error?: Error }];
  'message:acked': [MessageOutcome];
  'message:retried': [MessageOutcome];
  'message:parked': [MessageOutcome];
};
