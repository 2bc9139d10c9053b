import express, { type Express, type Request } from 'express';
import { PROVIDER_SIGNATURE_HEADER } from '@switchboard/contracts';
import { AppError, requestLogger, secretsMatch, type Broker } from '@switchboard/service-kit';
import type { InboundEventStore } from '../../data-access/inbound-event-store';
import { acceptWebhook } from '../../domain/accept-webhook';
import { publishEvent } from '../../domain/publish-event';
import { hasValidSignature } from '../../domain/verify-signature';
import type { ChannelDirectory } from '../../outbound/channel-directory';

const RECEIVE_PATH = '/webhook/svc/receive/:token';

export interface ReceiveRouteDeps {
  channels: ChannelDirectory;
  store: InboundEventStore;
  broker: Broker;
  bodyLimit: string;
}

/** The provider's door (spec §4.4): raw bytes in, because the signature covers exactly them. */
export function receiveRoutes(app: Express, deps: ReceiveRouteDeps): void {
  const channelOf = async (req: Request) => {
    const channel = await deps.channels.find(String(req.params.token));
    if (!channel) throw new AppError('not_found', 'Unknown webhook URL');
    return channel;
  };

  app.get(RECEIVE_PATH, async (req, res) => {
    const channel = await channelOf(req);
    const mode = req.query['hub.mode'];
    const verifyToken = req.query['hub.verify_token'];
    const challenge = req.query['hub.challenge'];
    if (
      mode !== 'subscribe' ||
      typeof verifyToken !== 'string' ||
      typeof challenge !== 'string' ||
      !secretsMatch(verifyToken, channel.verify_token)
    ) {
      throw new AppError('forbidden', 'Verification failed');
    }
    res.status(200).type('text/plain').send(challenge);
  });

  app.post(
    RECEIVE_PATH,
    express.raw({ type: () => true, limit: deps.bodyLimit }),
    async (req, res) => {
      const channel = await channelOf(req);
      const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (!hasValidSignature(rawBody, req.header(PROVIDER_SIGNATURE_HEADER), channel.app_secret)) {
        throw new AppError('forbidden', 'Invalid signature');
      }
      const { event, duplicate } = await acceptWebhook(deps.store, channel, rawBody);
      res.status(200).json({ status: 'success' });

      if (duplicate || event.pending.length === 0 || event.published_at) return;
      // Answered first: the provider waits for nobody. If this fails, the relay publishes later.
      publishEvent(deps.broker, deps.store, event).catch((error: unknown) => {
        requestLogger(res).warn({ err: error, eventId: event._id }, 'publish deferred to relay');
      });
    },
  );
}
