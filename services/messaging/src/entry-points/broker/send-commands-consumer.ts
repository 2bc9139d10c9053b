import { createHash } from 'node:crypto';
import {
  MessagingSendCommandSchema,
  QUEUES,
  type MessagingSendCommand,
} from '@switchboard/contracts';
import {
  AppError,
  PermanentError,
  RetryLaterError,
  type Broker,
  type Logger,
} from '@switchboard/service-kit';
import { contentOfCommand } from '../../domain/sending/content-of';
import { SendDeferred, type Sender } from '../../domain/sending/send-message';

/** Refusals a retry cannot change: the command is parked with the reason. */
const FINAL_CODES = new Set(['quota_exceeded', 'not_found', 'validation_failed', 'provider_error']);

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
      const fingerprint = createHash('sha256')
        .update(JSON.stringify({ recipient, content: command.content }))
        .digest('hex');
      try {
        const answer = await deps.sender.send({
          organization: {
            company_id: command.company_id,
            plan: command.plan,
            plan_started_at: new Date(command.plan_started_at),
          },
          recipient,
          content: contentOfCommand(command.content),
          idempotency: { scope: 'command', key: command.idempotency_key, fingerprint },
          ...(command.campaign_id ? { campaign_id: command.campaign_id } : {}),
          ...(command.quota_reserved && command.quota_month
            ? { reservedMonth: command.quota_month }
            : {}),
          mayFail: context.attempt >= options.maxAttempts,
        });
        deps.logger.debug(
          { key: command.idempotency_key, status: answer.http_status, replayed: answer.replayed },
          'send command settled',
        );
      } catch (error) {
        if (error instanceof SendDeferred) throw error;
        if (error instanceof AppError && FINAL_CODES.has(error.code)) {
          throw new PermanentError(error.message, { reason: `${error.code}: ${error.message}` });
        }
        if (error instanceof AppError && error.code === 'conflict') {
          // Still being sent under another attempt's lease: after a crash that lease outlasts
          // the attempts a command has, so waiting for it must not spend them.
          if (/still being/.test(error.message)) throw new RetryLaterError(error.message);
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
