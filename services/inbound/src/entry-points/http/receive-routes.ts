import express, { type Express, type Request } from 'express';
import { PROVIDER_SIGNATURE_HEADER } from '@switchboard/contracts';
import { AppError, secretsMatch } from '@switchboard/service-kit';
import { hasValidSignature } from '../../domain/verify-signature';
import type { WebhookIntake } from '../../domain/webhook-intake';
import type { ChannelDirectory } from '../../domain/channel-directory';

const RECEIVE_PATH = '/webhook/svc/receive/:token';

export interface ReceiveRouteDeps {
  channels: ChannelDirectory;
  intake: WebhookIntake;
  bodyLimit: string;
}

/** The provider's door (the published inbound webhook): raw bytes in, because the signature covers exactly them. */
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
      // Stored before the answer; published after it (the intake publishes, the relay retries).
      await deps.intake.accept(channel, rawBody);
      res.status(200).json({ status: 'success' });
    },
  );
}
