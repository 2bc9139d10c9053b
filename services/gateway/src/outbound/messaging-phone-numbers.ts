import {
  AddPhoneNumberResponseSchema,
  ListPhoneNumbersResponseSchema,
  type AddPhoneNumberRequest,
  type AddPhoneNumberResponse,
  type ListPhoneNumbersResponse,
} from '@switchboard/contracts';
import type { ErrorCode } from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { ServiceProxy } from './service-proxy';

/** Messaging's refusals the admin sees as they are; anything else is messaging failing. */
const PASSED_THROUGH: Record<number, ErrorCode> = {
  404: 'not_found',
  409: 'conflict',
  422: 'validation_failed',
};

function refusal(status: number, data: unknown): AppError {
  const body = data as { message?: string } | undefined;
  const code = PASSED_THROUGH[status];
  return code
    ? new AppError(code, body?.message ?? 'Refused')
    : new AppError('dependency_unavailable', `messaging answered ${status}`);
}

/** An organization's phone numbers, kept by messaging (each one a channel of its own). */
export function messagingPhoneNumbers(proxy: ServiceProxy) {
  return {
    async add(company_id: number, request: AddPhoneNumberRequest): Promise<AddPhoneNumberResponse> {
      const { status, data } = await proxy.call('messaging', {
        method: 'POST',
        url: `/internal/channels/${company_id}/numbers`,
        data: request,
      });
      if (status !== 201) throw refusal(status, data);
      return AddPhoneNumberResponseSchema.parse(data);
    },
    async list(company_id: number): Promise<ListPhoneNumbersResponse> {
      const { status, data } = await proxy.call('messaging', {
        method: 'GET',
        url: `/internal/channels/${company_id}/numbers`,
      });
      if (status !== 200) throw refusal(status, data);
      return ListPhoneNumbersResponseSchema.parse(data);
    },
  };
}

export type MessagingPhoneNumbers = ReturnType<typeof messagingPhoneNumbers>;
