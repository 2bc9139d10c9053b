import type { Router } from 'express';
import {
  GetConversationsQuerySchema,
  GetMessageStatusQuerySchema,
  GetMessagesQuerySchema,
  MarkMessageReadRequestSchema,
} from '@switchboard/contracts';
import { orgContext, parseInput, serveOperation } from '@switchboard/service-kit';
import type { AccountStatusReader } from '../../domain/reading/account-status';
import { markMessageRead, type MarkReadDeps } from '../../domain/receiving/mark-message-read';
import {
  getConversations,
  getMessageStatus,
  getMessages,
  type ReadingDeps,
} from '../../domain/reading/read-messages';
import { signedInUserOf } from './caller';

/** The API's read operations; every lookup is the caller's organization's only. */
export function readRoutes(
  router: Router,
  deps: ReadingDeps & { accountStatus: AccountStatusReader; markRead: MarkReadDeps },
): void {
  serveOperation(router, 'getMessageStatus', async (req, res) => {
    const { company_id } = orgContext(req);
    const { message_id } = parseInput(GetMessageStatusQuerySchema, req.query);
    res.json(await getMessageStatus(deps, company_id, message_id));
  });

  serveOperation(router, 'getMessages', async (req, res) => {
    const { company_id } = orgContext(req);
    const query = parseInput(GetMessagesQuerySchema, req.query);
    res.json(await getMessages(deps, company_id, query));
  });

  serveOperation(router, 'getConversations', async (req, res) => {
    const { company_id } = orgContext(req);
    const query = parseInput(GetConversationsQuerySchema, req.query);
    res.json(await getConversations(deps, company_id, query, signedInUserOf(req)?.user_id));
  });

  serveOperation(router, 'markMessageRead', async (req, res) => {
    const { company_id } = orgContext(req);
    const request = parseInput(MarkMessageReadRequestSchema, req.body ?? {});
    res.json(await markMessageRead(deps.markRead, company_id, request));
  });

  serveOperation(router, 'accountStatus', async (req, res) => {
    const { company_id } = orgContext(req);
    res.json(await deps.accountStatus.read(company_id));
  });
}
