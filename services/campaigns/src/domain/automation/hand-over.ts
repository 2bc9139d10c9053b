import type { Logger } from '@switchboard/service-kit';
import type { AutomationStateStore } from '../../data-access/automation/automation-state-store';
import type { ServiceClients } from '../../outbound/service-clients';

/** Bots off for the contact, and the conversation waits for a person in the inbox. */
export type HandOver = (company_id: number, contact_id: number) => Promise<void>;

/** A flow's hand-over step and the AI bot's hand-over: automated answers stop for the contact. */
export function createHandOver(deps: {
  states: Pick<AutomationStateStore, 'turnBotsOff'>;
  clients: Pick<ServiceClients, 'markNeedsHuman'>;
  logger: Logger;
}): HandOver {
  return async (company_id, contact_id) => {
    await deps.states.turnBotsOff(company_id, contact_id);
    if (!(await deps.clients.markNeedsHuman(company_id, contact_id))) {
      deps.logger.warn({ company_id, contact_id }, 'hand-over: the contact has no conversation');
    }
  };
}
