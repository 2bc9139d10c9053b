import { AppError } from '@switchboard/service-kit';
import type { AutomationStateStore } from '../../data-access/automation/automation-state-store';
import type { ServiceClients } from '../../outbound/service-clients';

export interface ContactBotsDeps {
  states: AutomationStateStore;
  clients: Pick<ServiceClients, 'contactById'>;
}

/** Turns every automated answer (replies, flows, the AI bot) on or off for one existing contact. */
export async function setContactBots(
  deps: ContactBotsDeps,
  company_id: number,
  contact_id: number,
  enabled: boolean,
): Promise<void> {
  if (!(await deps.clients.contactById(company_id, contact_id))) {
    throw new AppError('not_found', `contact_id: no contact ${contact_id}`);
  }
  await deps.states.setBotsOff(company_id, contact_id, !enabled);
}
