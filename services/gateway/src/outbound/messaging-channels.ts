import {
  ProvisionChannelResponseSchema,
  UpdateChannelResponseSchema,
  type ProvisionChannelRequest,
  type UpdateChannelRequest,
  type UpdateChannelResponse,
} from '@switchboard/contracts';
import { AppError } from '@switchboard/service-kit';
import type { ProvisionChannel } from '../domain/manage-organizations';
import type { ServiceProxy } from './service-proxy';

/** Passes an owner's error envelope through as the gateway's own answer. */
function rethrow(status: number, data: unknown): never {
  const body = data as { code?: string; message?: string } | undefined;
  if (status === 404) throw new AppError('not_found', body?.message ?? 'Not found');
  if (status === 409) throw new AppError('conflict', body?.message ?? 'Conflict');
  if (status === 422) throw new AppError('validation_failed', body?.message ?? 'Invalid');
  throw new AppError('dependency_unavailable', `messaging answered ${status}`);
}

export function messagingChannels(proxy: ServiceProxy) {
  const provision: ProvisionChannel = async (organization) => {
    const request: ProvisionChannelRequest = {
      company_id: organization.company_id,
      name: organization.name,
    };
    const { status, data } = await proxy.call('messaging', {
      method: 'POST',
      url: '/internal/channels',
      data: request,
    });
    if (status !== 200) rethrow(status, data);
    return ProvisionChannelResponseSchema.parse(data).channel;
  };

  const update = async (
    company_id: number,
    changes: UpdateChannelRequest,
  ): Promise<UpdateChannelResponse> => {
    const { status, data } = await proxy.call('messaging', {
      method: 'PUT',
      url: `/internal/channels/${company_id}`,
      data: changes,
    });
    if (status !== 200) rethrow(status, data);
    return UpdateChannelResponseSchema.parse(data);
  };

  return { provision, update };
}

export type MessagingChannels = ReturnType<typeof messagingChannels>;
