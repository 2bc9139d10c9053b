import type { Router } from 'express';
import { classifyFaultRule, FaultRuleInputSchema } from '../../domain/faults/fault-rules';
import type { SimulatorContext } from '../../simulator-context';
import { ControlError, parseBody } from './control-error';

/** `POST /sim/faults`, `GET /sim/faults`, `DELETE /sim/faults`, `DELETE /sim/faults/{id}`. */
export function addFaultRoutes(router: Router, ctx: SimulatorContext): void {
  router.post('/faults', (req, res) => {
    const rule = classifyFaultRule(
      parseBody(FaultRuleInputSchema, req.body),
      ctx.state.nextSequence(),
    );
    ctx.state.faults.push(rule);
    if (rule.kind === 'throughput') ctx.state.throughputBuckets.clear();
    res.status(201).json({ fault: rule });
  });

  router.get('/faults', (_req, res) => {
    res.json({ faults: ctx.state.faults });
  });

  router.delete('/faults', (_req, res) => {
    ctx.state.faults.length = 0;
    ctx.state.throughputBuckets.clear();
    res.status(204).end();
  });

  router.delete('/faults/:id', (req, res) => {
    const index = ctx.state.faults.findIndex((rule) => String(rule.id) === req.params.id);
    if (index < 0) throw new ControlError(404, 'not_found', 'No fault with this id.');
    ctx.state.faults.splice(index, 1);
    ctx.state.throughputBuckets.clear();
    res.status(204).end();
  });
}
