import type { Request, Response } from 'express';
import { AssignConversationRequestSchema } from '@switchboard/contracts';
import { authenticatedOrganization } from './authenticate';

/**
 * Operations whose input the gateway checks before forwarding, because it needs the users that
 * live here; express routes them (the fast path forwards without looking at bodies).
 */
export const EDGE_CHECKED_OPERATIONS: ReadonlySet<string> = new Set(['assignConversation']);

/**
 * `assignConversation`: the agent must be an active user of the caller's organization. Users live
 * in the gateway, so it checks here and messaging keeps only the id. Input that does not parse is
 * left to messaging, which answers the validation error with the contract's wording.
 */
export type EdgeCheck = (req: Request, res: Response) => Promise<void>;

export function checkAssignee(
  checkAssignable: (company_id: number, agent_id: number) => Promise<void>,
): EdgeCheck {
  return async (req, res) => {
    const parsed = AssignConversationRequestSchema.safeParse(req.body ?? {});
    const agent_id = parsed.success ? parsed.data.agent_id : null;
    if (agent_id !== null) {
      const { company_id } = authenticatedOrganization(res);
      await checkAssignable(company_id, agent_id);
    }
  };
}
