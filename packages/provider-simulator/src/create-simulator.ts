import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { saveChannel } from './domain/accounts/register-channel';
import { createControlRouter } from './entry-points/control/control-router';
import { createGraphRouter } from './entry-points/graph/graph-router';
import { stripApiVersion } from './entry-points/strip-api-version';
import { deliverWebhook } from './outbound/deliver-webhook';
import type { SimulatorContext } from './simulator-context';
import type { SimulatorOptions } from './simulator-options';
import { resolveOptions } from './simulator-options';
import { ChannelRegistrationSchema } from './state/channel';
import { Scheduler } from './state/scheduler';
import { SimulatorState } from './state/simulator-state';

export interface Simulator {
  app: express.Express;
  state: SimulatorState;
  context: SimulatorContext;
  start(port?: number, host?: string): Promise<{ url: string; port: number }>;
  stop(): Promise<void>;
  reset(options?: { dropRegisteredChannels?: boolean }): void;
}

/** A WhatsApp Cloud API stand-in: build it, `start()` it on a port, `stop()` it. */
export function createSimulator(options: SimulatorOptions = {}): Simulator {
  const resolved = resolveOptions(options);
  const state = new SimulatorState();
  const scheduler = new Scheduler();
  const ctx: SimulatorContext = {
    state,
    options: resolved,
    scheduler,
    log: resolved.logger,
    now: () => Date.now(),
    postWebhook: (input) => deliverWebhook(ctx, input),
  };
  for (const registration of resolved.channels) {
    saveChannel(ctx, ChannelRegistrationSchema.parse(registration), true);
  }

  const reset = (resetOptions: { dropRegisteredChannels?: boolean } = {}): void => {
    scheduler.renew();
    state.reset({ dropRegisteredChannels: resetOptions.dropRegisteredChannels ?? false });
    // Channels come back as registered: quality, tier and name status return to their start.
    const kept = [...state.channels.values()];
    state.channels.clear();
    state.wabas.clear();
    for (const channel of kept) saveChannel(ctx, channel.registration, channel.preconfigured);
  };

  const app = express();
  app.disable('x-powered-by');
  app.use(stripApiVersion);
  app.get('/livez', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use('/sim', createControlRouter(ctx, reset));
  app.use(createGraphRouter(ctx));

  let server: Server | undefined;
  return {
    app,
    state,
    context: ctx,
    reset,
    start(port = 0, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        const listening = createServer(app);
        listening.once('error', reject);
        listening.listen(port, host, () => {
          server = listening;
          const address = listening.address() as AddressInfo;
          const shownHost = host.includes(':') ? `[${host}]` : host;
          resolve({ url: `http://${shownHost}:${address.port}`, port: address.port });
        });
      });
    },
    async stop() {
      scheduler.cancelAll();
      const closing = server;
      server = undefined;
      if (!closing) return;
      await new Promise<void>((resolve) => {
        closing.close(() => resolve());
        closing.closeAllConnections();
      });
    },
  };
}
