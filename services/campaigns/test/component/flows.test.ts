import {
  FLOW_OPERATIONS,
  FlowResponseSchema,
  FlowsResponseSchema,
  MAX_FLOW_STEPS,
  buildOpenApiDocument,
  type AddFlowRequestInput,
} from '@switchboard/contracts';
import {
  startCampaignsSystem,
  type CampaignsSystem,
  type Organization,
} from '../support/campaigns-harness';
import { orderFlow } from '../support/flow-fixtures';

jest.setTimeout(90_000);

let system: CampaignsSystem;

beforeAll(async () => {
  system = await startCampaignsSystem('flowsapi');
});

afterAll(async () => {
  await system?.stop();
});

const call = (org: Organization, method: string, operation: string, body = {}) =>
  org.api.send(method, operation, body);

async function added(org: Organization, flow: AddFlowRequestInput) {
  const answer = await call(org, 'POST', 'addFlow', flow);
  expect(answer.status).toBe(201);
  return FlowResponseSchema.parse(answer.body).flow;
}

describe('managing flows (getFlows, addFlow, updateFlow, deleteFlow)', () => {
  test('when a flow is added, then it is answered and listed as stored, with its start step and triggers', async () => {
    const org = await system.newOrganization('standard', 'Flow Co');
    const flow = await added(org, { ...orderFlow(), triggers: 'order, buy , ' });
    expect(flow).toMatchObject({
      name: 'Order a shirt',
      triggers: ['order', 'buy'],
      start_step: 'welcome',
      active: true,
    });
    expect(flow.steps).toHaveLength(7);
    expect(flow.steps[2]).toEqual({
      id: 'save_size',
      type: 'set_field',
      field: 'custom.size',
      value: '{{reply}}',
      next: 'confirm',
    });

    const listed = await org.api.get('getFlows');
    expect(listed.status).toBe(200);
    expect(FlowsResponseSchema.parse(listed.body)).toEqual({
      status: 'success',
      flows: [flow],
      meta: { total: 1, page: 1, per_page: 20, next_page: null },
    });
  });

  test('when flows are listed a page at a time, then pages hold per_page flows in id order and meta counts all', async () => {
    const org = await system.newOrganization('standard', 'Paging Co');
    const ids: number[] = [];
    for (const trigger of ['one', 'two', 'three'])
      ids.push((await added(org, orderFlow(trigger))).id);
    const first = FlowsResponseSchema.parse((await org.api.get('getFlows', { per_page: 2 })).body);
    expect(first.flows.map((flow) => flow.id)).toEqual(ids.slice(0, 2));
    expect(first.meta).toEqual({ total: 3, page: 1, per_page: 2, next_page: 2 });
    const second = FlowsResponseSchema.parse(
      (await org.api.get('getFlows', { per_page: 2, page: 2 })).body,
    );
    expect(second.flows.map((flow) => flow.id)).toEqual(ids.slice(2));
    const tooMany = await org.api.get('getFlows', { per_page: 101 });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.message).toMatch(/^per_page: /);
  });

  test('when a flow is updated with PUT or POST, then only the given fields change and a new graph starts at its first step', async () => {
    const org = await system.newOrganization('standard', 'Update Co');
    const flow = await added(org, orderFlow());
    const renamed = await call(org, 'PUT', 'updateFlow', {
      id: flow.id,
      name: 'Shirts',
      active: false,
    });
    expect(renamed.status).toBe(200);
    expect(FlowResponseSchema.parse(renamed.body).flow).toMatchObject({
      id: flow.id,
      name: 'Shirts',
      active: false,
      triggers: flow.triggers,
      steps: flow.steps,
      created_at: flow.created_at,
    });

    const steps = [{ id: 'only', type: 'end', message: { type: 'text', text: 'Closed today' } }];
    const replaced = await call(org, 'POST', 'updateFlow', { id: flow.id, steps, triggers: ['x'] });
    expect(replaced.status).toBe(200);
    expect(FlowResponseSchema.parse(replaced.body).flow).toMatchObject({
      name: 'Shirts',
      triggers: ['x'],
      start_step: 'only',
      steps,
    });

    const badStart = await call(org, 'PUT', 'updateFlow', { id: flow.id, start_step: 'welcome' });
    expect(badStart.status).toBe(422);
    expect(badStart.body.message).toBe('start_step: welcome is not a step of this flow');
    const nothing = await call(org, 'PUT', 'updateFlow', { id: flow.id });
    expect(nothing.status).toBe(422);
  });

  test('when a flow is deleted with DELETE or POST, then it is gone and a second delete is 404', async () => {
    const org = await system.newOrganization('standard', 'Delete Co');
    const first = await added(org, orderFlow('first'));
    const second = await added(org, orderFlow('second'));
    expect((await call(org, 'DELETE', 'deleteFlow', { id: first.id })).status).toBe(200);
    expect((await call(org, 'POST', 'deleteFlow', { id: second.id })).status).toBe(200);
    const again = await call(org, 'DELETE', 'deleteFlow', { id: first.id });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ status: 'error', code: 'not_found' });
    expect((await org.api.get('getFlows')).body.flows).toEqual([]);
  });

  test('when an operation is called with another method, then 405 names the allowed ones', async () => {
    const org = await system.newOrganization('standard', 'Method Co');
    const wrong = await org.api.get('addFlow');
    expect(wrong.status).toBe(405);
    expect(wrong.body.code).toBe('method_not_allowed');
    expect(wrong.body.message).toBe('addFlow is called with POST, not GET');
    expect((await call(org, 'POST', 'getFlows')).status).toBe(405);
    const update = await org.api.get('updateFlow', { id: 1 });
    expect(update.body.message).toBe('updateFlow is called with PUT or POST, not GET');
    const remove = await call(org, 'PUT', 'deleteFlow', { id: 1 });
    expect(remove.body.message).toBe('deleteFlow is called with DELETE or POST, not PUT');
  });

  test('when the OpenAPI document is built, then every flow operation is in it', () => {
    const document = buildOpenApiDocument();
    for (const operation of FLOW_OPERATIONS) {
      expect(document.paths[operation.path]?.[operation.method]).toMatchObject({
        operationId: operation.operationId,
      });
    }
  });
});

describe('bad input: the graph is checked when saved', () => {
  let org: Organization;
  beforeAll(async () => {
    org = await system.newOrganization('standard', 'Bad Input Co');
  });

  const withSteps = (steps: unknown[], extra: Record<string, unknown> = {}) => ({
    name: 'Broken',
    triggers: ['broken'],
    steps,
    ...extra,
  });
  const ask = (buttons: { id: string; title: string }[], branches: unknown[] = []) => ({
    id: 'ask',
    type: 'message',
    message: { type: 'text', text: 'Pick one', buttons },
    branches,
  });
  const end = { id: 'end', type: 'end' };

  test.each([
    [
      'a branch goes to a missing step',
      withSteps([ask([{ id: 'a', title: 'A' }], [{ button: 'a', next: 'nowhere' }]), end]),
      'steps.0: step ask: goes to nowhere, which is not a step of this flow',
    ],
    [
      'two buttons share an id',
      withSteps([
        ask(
          [
            { id: 'a', title: 'A' },
            { id: 'a', title: 'B' },
          ],
          [{ button: 'a', next: 'end' }],
        ),
        end,
      ]),
      'steps.0: step ask: button ids must be unique',
    ],
    [
      'a branch names a button the message lacks',
      withSteps([ask([{ id: 'a', title: 'A' }], [{ button: 'b', next: 'end' }]), end]),
      'steps.0: step ask: branches on button b, which its message does not have',
    ],
    [
      'the start step is not a step',
      withSteps([end], { start_step: 'begin' }),
      'start_step: begin is not a step of this flow',
    ],
    [
      'two steps share an id',
      withSteps([end, { id: 'end', type: 'end' }]),
      'steps.1.id: step id end is used twice',
    ],
    [
      'steps loop without waiting for a reply',
      withSteps([
        { id: 'a', type: 'add_to_group', group: 'G', next: 'b' },
        { id: 'b', type: 'set_field', field: 'name', value: 'x', next: 'a' },
      ]),
      'steps.0: step a: leads back to itself without a message step between',
    ],
  ])('when %s, then 422 names the step', async (_case, body, message) => {
    const answer = await call(org, 'POST', 'addFlow', body);
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ status: 'error', code: 'validation_failed' });
    expect(answer.body.message).toContain(message);
  });

  test('when a message has 4 buttons, there are too many steps, a branch has no condition or a field is not writable, then 422 names the place', async () => {
    const four = [1, 2, 3, 4].map((n) => ({ id: `b${n}`, title: `B${n}` }));
    const buttons = await call(org, 'POST', 'addFlow', withSteps([ask(four), end]));
    expect(buttons.status).toBe(422);
    expect(buttons.body.message).toMatch(/^steps\.0\.message\.buttons: /);

    const many = Array.from({ length: MAX_FLOW_STEPS + 1 }, (_, i) => ({
      id: `s${i}`,
      type: 'end',
    }));
    const tooMany = await call(org, 'POST', 'addFlow', withSteps(many));
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.message).toBe(`steps: must have at most ${MAX_FLOW_STEPS} steps`);

    const noCondition = await call(
      org,
      'POST',
      'addFlow',
      withSteps([ask([], [{ next: 'end' }]), end]),
    );
    expect(noCondition.status).toBe(422);
    expect(noCondition.body.message).toBe(
      'steps.0.branches.0: must have exactly one of button, keywords or any',
    );

    const field = await call(
      org,
      'POST',
      'addFlow',
      withSteps([{ id: 'f', type: 'set_field', field: 'phone', value: '1' }]),
    );
    expect(field.status).toBe(422);
    expect(field.body.message).toMatch(/^steps\.0\.field: /);
  });

  test('when a required field is missing, a type is unknown or an operator is sent, then 422 and nothing is stored', async () => {
    for (const body of [
      { triggers: ['x'], steps: [end] },
      { name: 'n', steps: [end] },
      { name: 'n', triggers: ['x'], steps: [] },
      { name: 'n', triggers: ['x'], steps: [{ id: 'a', type: 'teleport' }] },
      { name: { $gt: '' }, triggers: ['x'], steps: [end] },
      { name: 'n', triggers: ['?!'], steps: [end] },
    ]) {
      const answer = await call(org, 'POST', 'addFlow', body);
      expect(answer.status).toBe(422);
      expect(answer.body.code).toBe('validation_failed');
    }
    expect((await org.api.get('getFlows')).body.meta.total).toBe(0);
  });

  test('when an active flow has a trigger another active flow has (any case or accent), then 409; an inactive one may', async () => {
    const own = await system.newOrganization('standard', 'Trigger Co');
    const first = await added(own, { ...orderFlow(), triggers: ['Menú'] });
    const clash = await call(own, 'POST', 'addFlow', {
      ...orderFlow(),
      triggers: ['other', 'MENU!'],
    });
    expect(clash.status).toBe(409);
    expect(clash.body.message).toBe(`triggers: "Menú" already starts flow ${first.id}`);

    const inactive = await added(own, { ...orderFlow(), triggers: ['menu'], active: false });
    const activate = await call(own, 'PUT', 'updateFlow', { id: inactive.id, active: true });
    expect(activate.status).toBe(409);
  });
});

describe('tenant isolation', () => {
  test('when another organization lists, reads, updates or deletes a flow, then it sees none and 404 changes nothing', async () => {
    const owner = await system.newOrganization('standard', 'Owner Co');
    const stranger = await system.newOrganization('standard', 'Stranger Co');
    const flow = await added(owner, orderFlow());

    expect((await stranger.api.get('getFlows')).body).toMatchObject({
      flows: [],
      meta: { total: 0 },
    });
    const update = await call(stranger, 'PUT', 'updateFlow', { id: flow.id, name: 'Mine now' });
    expect(update.status).toBe(404);
    expect(update.body.message).toBe(`id: no flow ${flow.id}`);
    const remove = await call(stranger, 'DELETE', 'deleteFlow', { id: flow.id });
    expect(remove.status).toBe(404);

    // The same trigger is free in another organization.
    await added(stranger, orderFlow());
    const ownerFlows = FlowsResponseSchema.parse((await owner.api.get('getFlows')).body).flows;
    expect(ownerFlows).toEqual([flow]);
  });
});
