import type { Router } from 'express';
import {
  AddFlowRequestSchema,
  FlowIdRequestSchema,
  GetFlowsQuerySchema,
  UpdateFlowRequestSchema,
  type FlowResponse,
  type FlowsResponse,
} from '@switchboard/contracts';
import { operationInput, orgContext, parseInput, serveOperation } from '@switchboard/service-kit';
import {
  addFlow,
  deleteFlow,
  listFlows,
  presentFlow,
  updateFlow,
  type FlowsDeps,
} from '../../../domain/automation/flows/manage-flows';

/** Flows over the API, beyond the spec's table. */
export function flowRoutes(router: Router, deps: FlowsDeps): void {
  serveOperation(router, 'getFlows', async (req, res) => {
    const { company_id } = orgContext(req);
    const query = parseInput(GetFlowsQuerySchema, operationInput(req));
    const { flows, meta } = await listFlows(deps, company_id, query);
    res.json({ status: 'success', flows: flows.map(presentFlow), meta } satisfies FlowsResponse);
  });

  serveOperation(router, 'addFlow', async (req, res) => {
    const { company_id } = orgContext(req);
    const request = parseInput(AddFlowRequestSchema, operationInput(req));
    const flow = await addFlow(deps, company_id, request);
    res.status(201).json({ status: 'success', flow: presentFlow(flow) } satisfies FlowResponse);
  });

  serveOperation(router, 'updateFlow', async (req, res) => {
    const { company_id } = orgContext(req);
    const request = parseInput(UpdateFlowRequestSchema, operationInput(req));
    const flow = await updateFlow(deps, company_id, request);
    res.json({ status: 'success', flow: presentFlow(flow) } satisfies FlowResponse);
  });

  serveOperation(router, 'deleteFlow', async (req, res) => {
    const { company_id } = orgContext(req);
    const { id } = parseInput(FlowIdRequestSchema, operationInput(req));
    await deleteFlow(deps, company_id, id);
    res.json({ status: 'success' });
  });
}
