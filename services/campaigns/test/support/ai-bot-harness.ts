import { Writable } from 'node:stream';
import { ContactSchema, type Contact, type MessageView } from '@switchboard/contracts';
import { createLogger } from '@switchboard/service-kit';
import type { CampaignsSystem, Organization } from './campaigns-harness';
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
 * service's own config and database and a client of messaging (the stub), with its log lines
 * kept for the test to read.
 */
export async function aiBotOf(system: CampaignsSystem): Promise<{ bot: AiBot; logs: LogLine[] }> {
  const { campaigns } = system;
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

/** A message a contact wrote, as messaging holds it and `message_received` names it. */
export interface Written {
  contact_id: number;
  message: MessageView;
}

/**
 * An end user writes to the organization: the contact (made when new, as messaging resolves it
 * at contacts) and the message in its conversation at messaging, where the bot reads history.
 */
export function contactWrites(
  system: CampaignsSystem,
  org: Organization,
  from: string,
  text: string,
): Written {
  const known = system.contacts.contacts.find(
    (contact) => contact.company_id === org.company_id && contact.phone === from,
  );
  const contact =
    known ?? system.contacts.add(org.company_id, { phone: from, name: 'Ada Customer' });
  return {
    contact_id: contact.id,
    message: system.messaging.record(org.company_id, contact, 'inbound', text),
  };
}

/** The contact as contacts holds it now. */
export function contactOf(system: CampaignsSystem, contact_id: number): Contact {
  return ContactSchema.parse(system.contacts.contacts.find((known) => known.id === contact_id));
}

/** The turn automation builds from a `message_received`. */
export function turnOf(system: CampaignsSystem, org: Organization, written: Written): InboundTurn {
  return {
    organization: org.organization,
    contact: contactOf(system, written.contact_id),
    message: {
      message_id: written.message.message_id,
      message_wamid: written.message.message_wamid!,
      type: written.message.type,
      text: written.message.message,
    },
    first_message: false,
    received_at: new Date(written.message.created_at),
  };
}

/** Switches the bot on or off for one contact, as contacts' updateAIBot stores it. */
export function switchAiBotForContact(
  system: CampaignsSystem,
  contact_id: number,
  enabled: boolean,
): void {
  const contact = system.contacts.contacts.find((known) => known.id === contact_id)!;
  contact.ai_bot_enabled = enabled;
}
