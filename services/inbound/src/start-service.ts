import { AppError, startServiceRuntime, type RunningService } from '@switchboard/service-kit';
import type { InboundConfig } from './config';

export function startService(config: InboundConfig): Promise<RunningService<InboundConfig>> {
  return startServiceRuntime({
    service: 'inbound',
    config,
    setup: () => ({
      // The provider calls this route directly (or through the gateway) with no internal secret.
      rawRoutes: (app) => {
        app.all('/webhook/svc/receive/:token', () => {
          throw new AppError('not_implemented', 'The inbound webhook is not implemented yet');
        });
      },
    }),
  });
}
