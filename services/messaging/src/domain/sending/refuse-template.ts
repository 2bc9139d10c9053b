import { AppError } from '@switchboard/service-kit';
import type { TemplateStore } from '../../data-access/template-store';
import type { ProviderFailure } from '../../outbound/provider-failure';
import { checkTemplateSendable } from '../templates/check-template-send';
import type { SendRequest } from './send-types';

/**
 * A template the organization cannot send is refused before any quota or
 * provider call. An API caller gets the error; a command is answered with a failed message
 * instead, because its producer (a campaign) counts on a `message_failed` for every command.
 */
export async function templateRefusal(
  templates: Pick<TemplateStore, 'find'>,
  request: SendRequest,
): Promise<ProviderFailure | undefined> {
  if (!('content' in request) || request.content.kind !== 'template') return undefined;
  try {
    await checkTemplateSendable(templates, request.organization.company_id, request.content);
    return undefined;
  } catch (error) {
    if (request.idempotency?.scope !== 'command' || !(error instanceof AppError)) throw error;
    return {
      message: error.message,
      code: null,
      httpStatus: 422,
      retryable: false,
      kind: 'refused',
    };
  }
}
