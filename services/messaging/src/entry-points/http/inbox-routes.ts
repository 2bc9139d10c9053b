import type { Router } from 'express';
import {
  AssignConversationRequestSchema,
  MESSAGING_INTERNAL_PATHS,
  NeedsHumanRequestSchema,
  SetConversationStatusRequestSchema,
} from '@switchboard/contracts';
import { orgContext, parseInput, serveOperation } from '@switchboard/service-kit';
import type { ConversationStore } from '../../data-access/conversation-store';
import { assignConversation, setConversationStatus } from '../../domain/inbox/manage-conversations';

/** The human inbox: who has a conversation, and whether it is open, waiting for a person or closed. */
export function inboxRoutes(router: Router, deps: { conversations: ConversationStore }): void {
  serveOperation(router, 'assignConversation', async (req, res) => {
    const { company_id } = orgContext(req);
    const { contact_id, agent_id } = parseInput(AssignConversationRequestSchema, req.body ?? {});
    res.json(await assignConversation(deps.conversations, company_id, contact_id, agent_id));
  });

  serveOperation(router, 'setConversationStatus', async (req, res) => {
    const { company_id } = orgContext(req);
    const { contact_id, status } = parseInput(SetConversationStatusRequestSchema, req.body ?? {});
    res.json(await setConversationStatus(deps.conversations, company_id, contact_id, status));
  });

  // A flow's hand-over step or the AI bot's hand-over (campaigns): a person should take it.
  router.post(MESSAGING_INTERNAL_PATHS.needsHuman, async (req, res) => {
    const { company_id, contact_id } = parseInput(NeedsHumanRequestSchema, req.body ?? {});
    res.json(
      await setConversationStatus(deps.conversations, company_id, contact_id, 'needs_human'),
    );
  });
}
