import type { Router } from 'express';
import {
  AddAutomatedReplyRequestSchema,
  AutomatedReplyIdRequestSchema,
  GetAutomatedRepliesQuerySchema,
  UpdateAutomatedReplyRequestSchema,
  UpdateContactBotsRequestSchema,
  type AutomatedRepliesResponse,
  type AutomatedReplyResponse,
  type ContactBotsResponse,
} from '@switchboard/contracts';
import { operationInput, orgContext, parseInput, serveOperation } from '@switchboard/service-kit';
import { setContactBots, type ContactBotsDeps } from '../../../domain/automation/contact-bots';
import {
  addReply,
  deleteReply,
  listReplies,
  presentReply,
  updateReply,
  type ReplyDeps,
} from '../../../domain/automation/manage-replies';

export interface AutomatedReplyRouteDeps extends ReplyDeps, ContactBotsDeps {}

/** The API's automated replies; update and delete also answer POST, for form clients. */
export function automatedReplyRoutes(router: Router, deps: AutomatedReplyRouteDeps): void {
  serveOperation(router, 'getAutomatedReplies', async (req, res) => {
    const { company_id } = orgContext(req);
    const query = parseInput(GetAutomatedRepliesQuerySchema, operationInput(req));
    const { replies, meta } = await listReplies(deps, company_id, query);
    res.json({
      status: 'success',
      replies: replies.map(presentReply),
      meta,
    } satisfies AutomatedRepliesResponse);
  });

  serveOperation(router, 'addAutomatedReply', async (req, res) => {
    const { company_id } = orgContext(req);
    const request = parseInput(AddAutomatedReplyRequestSchema, operationInput(req));
    const reply = await addReply(deps, company_id, request);
    res
      .status(201)
      .json({ status: 'success', reply: presentReply(reply) } satisfies AutomatedReplyResponse);
  });

  serveOperation(router, 'updateAutomatedReply', async (req, res) => {
    const { company_id } = orgContext(req);
    const request = parseInput(UpdateAutomatedReplyRequestSchema, operationInput(req));
    const reply = await updateReply(deps, company_id, request);
    res.json({ status: 'success', reply: presentReply(reply) } satisfies AutomatedReplyResponse);
  });

  serveOperation(router, 'deleteAutomatedReply', async (req, res) => {
    const { company_id } = orgContext(req);
    const { id } = parseInput(AutomatedReplyIdRequestSchema, operationInput(req));
    const reply = await deleteReply(deps, company_id, id);
    res.json({ status: 'success', reply: presentReply(reply) } satisfies AutomatedReplyResponse);
  });

  serveOperation(router, 'updateContactBots', async (req, res) => {
    const { company_id } = orgContext(req);
    const { contact_id, enabled } = parseInput(UpdateContactBotsRequestSchema, operationInput(req));
    await setContactBots(deps, company_id, contact_id, enabled);
    res.json({
      status: 'success',
      contact_id,
      bots_enabled: enabled,
    } satisfies ContactBotsResponse);
  });
}
