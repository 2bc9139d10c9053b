import type { ConfirmChannel, Message, Options } from 'amqplib';
import { PublishError, errorMessage } from './errors';
import type { PublishOptions } from './types';

/** A body as the JSON, persistent message every service publishes. */
export function jsonMessage(
  body: unknown,
  options: PublishOptions,
): { content: Buffer; properties: Options.Publish } {
  if (!options.messageId) throw new PublishError('invalid', 'messageId is required');
  let json: string | undefined;
  try {
    json = JSON.stringify(body);
  } catch (error) {
    throw new PublishError('invalid', 'body is not serialisable as JSON', { cause: error });
  }
  if (json === undefined) throw new PublishError('invalid', 'body is not serialisable as JSON');
  const properties: Options.Publish = {
    persistent: true,
    contentType: 'application/json',
    messageId: options.messageId,
    timestamp: Math.floor(Date.now() / 1000),
    headers: options.headers ?? {},
  };
  if (options.expiration !== undefined) properties.expiration = options.expiration;
  return { content: Buffer.from(json), properties };
}

interface InFlight {
  exchange: string;
  routingKey: string;
  messageId: string | undefined;
  returned: boolean;
}

/**
 * Publishes on a confirm channel and settles each publish only when the broker has confirmed it.
 * Every publish is mandatory: RabbitMQ sends `basic.return` before the `basic.ack` of a message
 * no queue took, so a returned message is known to be unroutable when its confirm arrives.
 */
export class ConfirmPublisher {
  private readonly inFlight: InFlight[] = [];
  private closed = false;
  // RabbitMQ closes the channel on e.g. a missing exchange; its error comes just before the close.
  private closeError: Error | undefined;

  constructor(readonly channel: ConfirmChannel) {
    channel.on('return', (message: Message) => this.markReturned(message));
    channel.on('error', (error: Error) => (this.closeError = error));
    channel.on('close', () => (this.closed = true));
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  async publish(
    exchange: string,
    routingKey: string,
    content: Buffer,
    options: Options.Publish,
  ): Promise<void> {
    const target = `${exchange || '(default)'}/${routingKey}`;
    const entry: InFlight = { exchange, routingKey, messageId: options.messageId, returned: false };
    this.inFlight.push(entry);
    try {
      await new Promise<void>((resolve, reject) => {
        try {
          this.channel.publish(
            exchange,
            routingKey,
            content,
            { ...options, mandatory: true },
            (err) => (err ? reject(this.closeError ?? err) : resolve()),
          );
        } catch (error) {
          throw new PublishError('not_connected', `cannot publish to ${target}`, { cause: error });
        }
      });
    } catch (error) {
      if (error instanceof PublishError) throw error;
      const why = errorMessage(error);
      throw new PublishError('nacked', `broker did not confirm ${target}: ${why}`, {
        cause: error,
      });
    } finally {
      this.inFlight.splice(this.inFlight.indexOf(entry), 1);
    }
    if (entry.returned) throw new PublishError('unroutable', `no queue is bound for ${target}`);
  }

  // Returns and confirms arrive in publish order, so the oldest matching unconfirmed entry is the one.
  private markReturned(message: Message): void {
    const entry = this.inFlight.find(
      (candidate) =>
        !candidate.returned &&
        candidate.exchange === message.fields.exchange &&
        candidate.routingKey === message.fields.routingKey &&
        candidate.messageId === message.properties.messageId,
    );
    if (entry) entry.returned = true;
  }
}
