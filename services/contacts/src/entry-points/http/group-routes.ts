import type { Router } from 'express';
import {
  AddGroupRequestSchema,
  GetGroupsQuerySchema,
  GroupIdRequestSchema,
  UpdateGroupRequestSchema,
  type Group,
  type GroupResponse,
  type GroupsResponse,
} from '@switchboard/contracts';
import { operationInput, orgContext, parseInput, serveOperation } from '@switchboard/service-kit';
import type { ContactsDeps } from '../../domain/dependencies';
import { addGroup, deleteGroup, listGroups, renameGroup } from '../../domain/manage-groups';

const groupResponse = (group: Group): GroupResponse => ({ status: 'success', group });
const YES = new Set(['yes', 'true', '1']);

/** The group operations of the published REST API. */
export function groupRoutes(router: Router, deps: ContactsDeps): void {
  serveOperation(router, 'getGroups', async (req, res) => {
    const { company_id } = orgContext(req);
    const { showContacts, ...paging } = parseInput(GetGroupsQuerySchema, operationInput(req));
    const withMembers = showContacts !== undefined && YES.has(showContacts);
    const body: GroupsResponse = {
      status: 'success',
      ...(await listGroups(deps, company_id, withMembers, paging)),
    };
    res.json(body);
  });

  serveOperation(router, 'addGroup', async (req, res) => {
    const { company_id } = orgContext(req);
    const { name } = parseInput(AddGroupRequestSchema, operationInput(req));
    res.status(201).json(groupResponse(await addGroup(deps, company_id, name)));
  });

  serveOperation(router, 'updateGroup', async (req, res) => {
    const { company_id } = orgContext(req);
    const { id, name } = parseInput(UpdateGroupRequestSchema, operationInput(req));
    res.json(groupResponse(await renameGroup(deps, company_id, id, name)));
  });

  serveOperation(router, 'deleteGroup', async (req, res) => {
    const { company_id } = orgContext(req);
    const { id } = parseInput(GroupIdRequestSchema, operationInput(req));
    res.json(groupResponse(await deleteGroup(deps, company_id, id)));
  });
}
