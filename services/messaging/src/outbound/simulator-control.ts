import { AppError, createOutboundClient, type Logger } from '@switchboard/service-kit';

/** What the simulator must know of a channel to accept its sends and post its webhooks. */
export interface SimulatorChannel {
  phone_number_id: string;
  waba_id: string;
  access_token: string;
  app_secret: string;
  verify_token: string;
  display_phone_number: string;
  verified_name: string;
}

/** Registers channels with the provider simulator's control API, so it accepts their sends. */
export function simulatorRegistrar(
  baseURL: string,
  logger: Logger,
): (channel: SimulatorChannel, inboundUrl: string) => Promise<void> {
  const client = createOutboundClient({
    name: 'provider-simulator',
    baseURL,
    timeoutMs: 5_000,
    logger,
  });
  return async (channel, inboundUrl) => {
    const response = await client
      .request({
        method: 'POST',
        url: '/sim/channels',
        data: {
          phone_number_id: channel.phone_number_id,
          waba_id: channel.waba_id,
          access_token: channel.access_token,
          app_secret: channel.app_secret,
          verify_token: channel.verify_token,
          webhook_url: inboundUrl,
          display_phone_number: channel.display_phone_number,
          verified_name: channel.verified_name,
        },
      })
      .catch((error: unknown) => {
        throw new AppError('dependency_unavailable', 'The provider simulator is unavailable', {
          cause: error,
        });
      });
    if (response.status >= 300) {
      throw new AppError(
        'provider_error',
        `The provider simulator refused the channel (${response.status})`,
      );
    }
  };
}
