import { createHash } from 'node:crypto';
import {
  MessagingSendCommandSchema,
  QUEUES,
  monthKey,
  type MessagingSendCommand,
  type SendContent,
} from '@switchboard/contracts';
import {
  AppError,
  PermanentError,
  RetryLaterError,
  type Broker,
  type Logger,
} from '@switchboard/service-kit';
import { contentOfCommand } from '../../domain/sending/content-of';
import { SEND_IN_PROGRESS, SendDeferred } from '../../domain/sending/send-errors';
import type { Sender } from '../../domain/sending/send-message';
import type { SendRequest } from '../../domain/sending/send-types';

/** Refusals a retry cannot change: the command is parked with the reason. */
const FINAL_CODES = new Set(['quota_exceeded', 'not_found', 'validation_failed', 'provider_error']);

/** Where a message's quota place comes from; messaging reserves one when neither is given. */
type Place = Pick<SendRequest, 'reservedMonth' | 'producerHold'>;

/**
 * The message a command chains after its own (`then`): keyed apart, so a redelivered command
 * replays the first and sends this one once. A full quota leaves it unsent, logged; anything
 * else propagates, and the command's retry replays the first and tries this one again.
 */
async function sendFollowUp(send: () => Promise<unknown>, logger: Logger): Promise<void> {
  try {
    await send();
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'quota_exceeded')) throw error;
    logger.warn(
      { reason: error.message },
      'chained message not sent: the message quota is used up',
    );
  }
}

/**
 * `messaging.send` commands (campaigns, bots, flows) go the way an API call goes, keyed by their
 * idempotency key: a redelivered command never sends twice. A send the provider refuses is
 * recorded (failed, `message_failed`) and acked; a provider that is unavailable gets the
 * command's broker retries before the message is recorded as failed on the last attempt.
 */
export async function consumeSendCommands(
  broker: Broker,
  deps: { sender: Sender; logger: Logger },
  options: { prefetch: number; maxAttempts: number; maxPostponements: number },
): Promise<void> {
  await broker.consume<MessagingSendCommand>(
    QUEUES.messagingCommands,
    async (command, context) => {
      const recipient =
        command.phone !== undefined && command.contact_id !== undefined
          ? {
              contact: {
                id: command.contact_id,
                phone: command.phone,
                name: command.contact_name ?? command.phone,
              },
            }
          : command.phone !== undefined
            ? { phone: command.phone }
            : { contact_id: command.contact_id! };
      const send = (content: SendContent, key: string, place: Place) =>
        deps.sender.send({
          organization: {
            company_id: command.company_id,
            plan: command.plan,
            plan_started_at: new Date(command.plan_started_at),
          },
          recipient,
          content: contentOfCommand(content),
          idempotency: {
            scope: 'command',
            key,
            fingerprint: createHash('sha256')
              .update(JSON.stringify({ recipient, content }))
              .digest('hex'),
          },
          ...(command.campaign_id ? { campaign_id: command.campaign_id } : {}),
          ...place,
          mayFail: context.attempt >= options.maxAttempts,
        });
      try {
        const answer = await send(
          command.content,
          command.idempotency_key,
          command.quota_hold
            ? {
                producerHold: {
                  name: command.quota_hold,
                  month: command.quota_month ?? monthKey(),
                },
              }
            : command.quota_reserved
              ? { reservedMonth: command.quota_month }
              : {},
        );
        deps.logger.debug(
          { key: command.idempotency_key, status: answer.http_status, replayed: answer.replayed },
          'send command settled',
        );
        if (command.then && answer.http_status === 200) {
          await sendFollowUp(
            () => send(command.then!.content, `${command.idempotency_key}:then`, {}),
            deps.logger,
          );
        }
      } catch (error) {
        if (error instanceof SendDeferred) throw error;
        if (error instanceof AppError && FINAL_CODES.has(error.code)) {
          throw new PermanentError(error.message, { reason: `${error.code}: ${error.message}` });
        }
        if (error instanceof AppError && error.code === 'conflict') {
          // Still being sent under another attempt's lease: after a crash that lease outlasts
          // the attempts a command has, so waiting for it must not spend them.
          if (error.reason === SEND_IN_PROGRESS) throw new RetryLaterError(error.message);
          throw new PermanentError(error.message, { reason: `conflict: ${error.message}` });
        }
        throw error;
      }
    },
    {
      schema: MessagingSendCommandSchema,
      prefetch: options.prefetch,
      maxAttempts: options.maxAttempts,
      maxPostponements: options.maxPostponements,
    },
  );
}
