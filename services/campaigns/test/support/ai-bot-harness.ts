import { Writable } from 'node:stream';
import { ContactResponseSchema, type Contact, type OrgContext } from '@switchboard/contracts';
import { createLogger } from '@switchboard/service-kit';
import { type MessageReceived, type MessagingSystem, type Organization } from './system-harness';
import { assembleAiBot, type AiBot } from '../../src/assemble-ai-bot';
import type { InboundTurn } from '../../src/domain/automation/responder';
import { createServiceClients } from '../../src/outbound/service-clients';

export interface LogLine {
  level: number;
  msg: string;
  reason?: string;
  detail?: string;
  company_id?: number;
  [key: string]: unknown;
}

/**
 * The AI bot of the running campaigns service as the answer pipeline gets it: assembled from the
 * service's own config and database and a client of the real messaging service, with its log
 * lines kept for the test to read.
 */
export async function aiBotOf(system: MessagingSystem): Promise<{ bot: AiBot; logs: LogLine[] }> {
  const campaigns = system.campaigns!;
  const logs: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        logs.push(JSON.parse(line) as LogLine);
      }
      done();
    },
  });
  const logger = createLogger('campaigns', 'debug', sink);
  const clients = createServiceClients({
    contactsUrl: campaigns.config.CONTACTS_URL,
    messagingUrl: campaigns.config.MESSAGING_URL,
    internalSecret: campaigns.config.INTERNAL_API_SECRET,
    logger,
    sendTimeoutMs: campaigns.config.SEND_TIMEOUT_MS,
  });
  const bot = await assembleAiBot({ config: campaigns.config, db: campaigns.db, clients, logger });
  return {
    bot: {
      ...bot,
      async shutdown() {
        await bot.shutdown();
        clients.shutdown();
      },
    },
    logs,
  };
}

/** An end user's message injected at the simulator; resolves with its `message_received`. */
export const contactWrites = (
  system: MessagingSystem,
  org: Organization,
  from: string,
  text: string,
): Promise<MessageReceived> =>
  system.customerWrites(org, { from, profile_name: 'Ada Customer', text }, 15_000);

export function orgContextOf(org: Organization): OrgContext {
  const { organization } = org.created;
  return {
    company_id: organization.company_id,
    plan: organization.plan,
    plan_started_at: new Date(organization.plan_started_at),
  };
}

export async function contactOf(org: Organization, contact_id: number): Promise<Contact> {
  const answer = await org.api.get('getSingleContact', { contact_id });
  return ContactResponseSchema.parse(answer.body).contact;
}

/** The turn automation builds from a `message_received`. */
export async function turnOf(org: Organization, received: MessageReceived): Promise<InboundTurn> {
  return {
    organization: orgContextOf(org),
    contact: await contactOf(org, received.data.contact_id),
    message: {
      message_id: received.data.message_id,
      message_wamid: received.data.message_wamid,
      type: received.data.message_type,
      text: received.data.message,
    },
    first_message: false,
    received_at: new Date(received.timestamp),
  };
}

export async function switchAiBotForContact(
  org: Organization,
  contact_id: number,
  enabled: boolean,
): Promise<void> {
  const answer = await org.api.post('updateAIBot', { id: contact_id, enabled });
  if (answer.status !== 200) throw new Error(`updateAIBot answered ${answer.status}`);
}
