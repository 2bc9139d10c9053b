import type { Router } from 'express';
import {
  AssignConversationRequestSchema,
  MESSAGING_INTERNAL_PATHS,
  NeedsHumanRequestSchema,
  SetConversationStatusRequestSchema,
} from '@switchboard/contracts';
import { orgContext, parseInput, serveOperation } from '@switchboard/service-kit';
import type { Inbox } from '../../domain/inbox/manage-conversations';

/** The human inbox: who has a conversation, and whether it is open, waiting for a person or closed. */
export function inboxRoutes(router: Router, deps: { inbox: Inbox }): void {
  serveOperation(router, 'assignConversation', async (req, res) => {
    const { company_id } = orgContext(req);
    const { contact_id, agent_id } = parseInput(AssignConversationRequestSchema, req.body ?? {});
    res.json(await deps.inbox.assign(company_id, contact_id, agent_id));
  });

  serveOperation(router, 'setConversationStatus', async (req, res) => {
    const { company_id } = orgContext(req);
    const { contact_id, status } = parseInput(SetConversationStatusRequestSchema, req.body ?? {});
    res.json(await deps.inbox.setStatus(company_id, contact_id, status));
  });

  // A flow's hand-over step or the AI bot's hand-over (campaigns): a person should take it.
  router.post(MESSAGING_INTERNAL_PATHS.needsHuman, async (req, res) => {
    const { company_id, contact_id } = parseInput(NeedsHumanRequestSchema, req.body ?? {});
    res.json(await deps.inbox.setStatus(company_id, contact_id, 'needs_human'));
  });
}
