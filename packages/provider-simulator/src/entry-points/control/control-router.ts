import express from 'express';
import type { SimulatorContext } from '../../simulator-context';
import { addAccountRoutes } from './account-routes';
import { addChannelRoutes } from './channels-routes';
import { controlErrorHandler, ControlError } from './control-error';
import { addFaultRoutes } from './faults-routes';
import { addInboundRoute } from './inbound-route';
import type { ResetHandler } from './inspection-routes';
import { addInspectionRoutes } from './inspection-routes';
import { addTemplateControlRoutes } from './templates-control-routes';

/** The control API under `/sim/`: no bearer token, Switchboard-style JSON answers. */
export function createControlRouter(ctx: SimulatorContext, reset: ResetHandler): express.Router {
  const router = express.Router();
  router.use(express.json({ limit: '4mb' }));
  addChannelRoutes(router, ctx);
  addInboundRoute(router, ctx);
  addFaultRoutes(router, ctx);
  addAccountRoutes(router, ctx);
  addTemplateControlRoutes(router, ctx);
  addInspectionRoutes(router, ctx, reset);
  router.use(() => {
    throw new ControlError(404, 'not_found', 'No such control route.');
  });
  router.use(controlErrorHandler(ctx.log));
  return router;
}
