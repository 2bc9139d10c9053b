import {
  ContactSchema,
  FlowResponseSchema,
  SendContentSchema,
  type AddFlowRequestInput,
  type Contact,
} from '@switchboard/contracts';
import { AppError, createLogger, type Logger } from '@switchboard/service-kit';
import {
  createFlowSessionStore,
  type StoredFlowSession,
} from '../../src/data-access/automation/flow-session-store';
import { createFlowStore } from '../../src/data-access/automation/flow-store';
import {
  createFlowResponder,
  type FlowResponderDeps,
} from '../../src/domain/automation/flows/flow-responder';
import type { InboundTurn, Responder } from '../../src/domain/automation/responder';
import { createServiceClients } from '../../src/outbound/service-clients';
import {
  sleep,
  startCampaignsSystem,
  uniquePhone,
  type CampaignsSystem,
  type Organization,
} from '../support/campaigns-harness';
import { orderFlow } from '../support/flow-fixtures';

jest.setTimeout(90_000);

let system: CampaignsSystem;
let deps: FlowResponderDeps;
let respond: Responder;
let clients: ReturnType<typeof createServiceClients>;
/** What the injected turnBotsOff was asked (the pipeline owns the real per-contact state). */
const botsTurnedOff: { company_id: number; contact_id: number }[] = [];
const logLines: { level: number; msg: string; [key: string]: unknown }[] = [];

beforeAll(async () => {
  system = await startCampaignsSystem('flowsengine');
  const { campaigns } = system;
  clients = createServiceClients({
    contactsUrl: system.contacts.url,
    messagingUrl: system.messaging.url,
    internalSecret: system.internalSecret,
    logger: campaigns.logger,
    sendTimeoutMs: 5_000,
  });
  const logger: Logger = createLogger('campaigns', 'info', {
    write: (line: string) => logLines.push(JSON.parse(line) as (typeof logLines)[number]),
  });
  // The responder as the pipeline will hold it, on the running campaigns service's database.
  deps = {
    flows: createFlowStore(campaigns.db),
    sessions: createFlowSessionStore(campaigns.db),
    updateContact: (company_id, contact_id, changes) =>
      clients.updateContact(company_id, contact_id, changes),
    turnBotsOff: async (company_id, contact_id) => {
      botsTurnedOff.push({ company_id, contact_id });
    },
    logger,
    sessionTimeoutMs: 60_000,
  };
  respond = createFlowResponder(deps);
});

afterAll(async () => {
  clients?.shutdown();
  await system?.stop();
});

let messageSeq = 1;

interface Customer {
  org: Organization;
  contact: Contact;
  /**
   * One inbound message from this contact (a text, or a button reply with its id), with the
   * contact as contacts has it now, as the pipeline looks it up for every message.
   */
  turn(text: string, reply_id?: string): Promise<InboundTurn>;
  session(): Promise<StoredFlowSession | null>;
  read(): Promise<Contact>;
}

async function customerOf(org: Organization, name = 'Ana'): Promise<Customer> {
  const contact = system.contacts.add(org.company_id, { name, phone: uniquePhone() });
  const { organization } = org;
  // The contact as contacts holds it now (the stub's record, changed only by campaigns' calls).
  const read = async () =>
    ContactSchema.parse(system.contacts.contacts.find((known) => known.id === contact.id));
  return {
    org,
    contact,
    turn: async (text, reply_id) => {
      const message_id = messageSeq++;
      return {
        organization,
        contact: await read(),
        message: {
          message_id,
          message_wamid: `wamid.flow${message_id}`,
          type: reply_id ? 'interactive' : 'text',
          text,
          ...(reply_id ? { reply_id } : {}),
        },
        first_message: false,
        received_at: new Date(),
      };
    },
    session: () => deps.sessions.find(org.company_id, contact.id),
    read,
  };
}

async function addFlow(org: Organization, flow: AddFlowRequestInput) {
  const answer = await org.api.send('POST', 'addFlow', flow);
  expect(answer.status).toBe(201);
  return FlowResponseSchema.parse(answer.body).flow;
}

/** The text of an answer, checked against the send command's content schema. */
function textOf(answer: Awaited<ReturnType<Responder>>): string {
  expect(answer).not.toBeNull();
  const content = SendContentSchema.parse(answer!.content);
  if (content.type !== 'text') throw new Error(`expected a text, got ${content.type}`);
  return content.message;
}

const brokenLines = (contact_id: number) =>
  logLines.filter(
    (line) => line.msg === 'flow step broken: the session ends' && line.contact_id === contact_id,
  );

describe('a flow with buttons, from trigger to end', () => {
  test('when a contact writes the trigger and taps the buttons, then each turn answers the next message, the contact is changed in contacts and the session ends', async () => {
    const org = await system.newOrganization('standard', 'Shirt Shop');
    const flow = await addFlow(org, orderFlow());
    const ana = await customerOf(org);

    const welcome = await respond(await ana.turn('  ORDER! '));
    expect(welcome).toEqual({
      source: `flow:${flow.id}`,
      content: {
        type: 'text',
        header: 'Shirts',
        message: 'Hi Ana! Do you want to order a shirt?',
        buttons: [
          { id: 'yes', title: 'Yes please' },
          { id: 'no', title: 'No' },
        ],
      },
    });
    expect(await ana.session()).toMatchObject({
      flow_id: flow.id,
      status: 'active',
      step_id: 'welcome',
      version: 1,
    });

    expect(textOf(await respond(await ana.turn('Yes please', 'yes')))).toBe('Which size?');
    expect(await ana.session()).toMatchObject({ step_id: 'ask_size', version: 2 });

    const confirm = await respond(await ana.turn('Medium', 'size_m'));
    expect(confirm?.content).toMatchObject({
      message: 'Size Medium, Ana. Shall we ship it?',
      footer: 'Free shipping',
      buttons: [{ id: 'ship', title: 'Ship it' }],
    });
    expect((await ana.read()).custom).toEqual({ size: 'Medium' });

    expect(textOf(await respond(await ana.turn('Ship it', 'ship')))).toBe(
      'Thanks Ana, your Medium shirt is on its way',
    );
    expect(await ana.session()).toMatchObject({
      status: 'ended',
      end_reason: 'completed',
      step_id: null,
      pending_actions: [],
      version: 4,
    });
    expect((await ana.read()).groups.map((group) => group.name)).toEqual(['Ordered']);

    // Ended: the same button again is nobody's business here (the next responder is asked).
    expect(await respond(await ana.turn('Ship it', 'ship'))).toBeNull();
  });

  test('when a button title is typed instead of tapped, then it counts as that button; anything else repeats the question', async () => {
    const org = await system.newOrganization('standard', 'Typing Shop');
    await addFlow(org, orderFlow());
    const ben = await customerOf(org, 'Ben');
    await respond(await ben.turn('order'));

    const repeated = await respond(await ben.turn('what?'));
    expect(textOf(repeated)).toBe('Hi Ben! Do you want to order a shirt?');
    expect(await ben.session()).toMatchObject({ status: 'active', step_id: 'welcome', version: 2 });

    expect(textOf(await respond(await ben.turn('no')))).toBe('Maybe another time!');
    expect(await ben.session()).toMatchObject({ status: 'ended', end_reason: 'completed' });
    expect((await ben.read()).custom).toEqual({});
  });
});

describe('triggers and branches', () => {
  const newsFlow = (trigger: string): AddFlowRequestInput => ({
    name: 'News',
    triggers: [trigger],
    steps: [
      {
        id: 'ask',
        type: 'message',
        message: { type: 'text', text: 'Do you want our news?' },
        branches: [
          { keywords: ['yes', 'sure'], next: 'subscribed' },
          { any: true, next: 'declined' },
        ],
      },
      {
        id: 'subscribed',
        type: 'message',
        message: { type: 'text', text: 'Great, {{name}}!' },
      },
      { id: 'declined', type: 'end', message: { type: 'text', text: 'No news then.' } },
    ],
  });

  test('when a reply holds a keyword as whole words, then that branch is taken; anything else takes the any branch', async () => {
    const org = await system.newOrganization('standard', 'News Co');
    await addFlow(org, newsFlow('Noticias'));
    const yes = await customerOf(org, 'Yara');
    const no = await customerOf(org, 'Noé');

    expect(textOf(await respond(await yes.turn('¡NOTÍCIAS!')))).toBe('Do you want our news?');
    expect(textOf(await respond(await yes.turn('Sure, why not')))).toBe('Great, Yara!');
    // A message step with no branch and no next ends the flow once sent.
    expect(await yes.session()).toMatchObject({ status: 'ended', end_reason: 'completed' });

    await respond(await no.turn('noticias'));
    expect(textOf(await respond(await no.turn('unsure')))).toBe('No news then.');
  });

  test('when a message only contains a trigger, or the flow is inactive, then no flow starts', async () => {
    const org = await system.newOrganization('standard', 'Quiet Co');
    const flow = await addFlow(org, newsFlow('news'));
    const carla = await customerOf(org, 'Carla');
    expect(await respond(await carla.turn('any news today?'))).toBeNull();

    await org.api.send('PUT', 'updateFlow', {
      id: flow.id,
      active: false,
    });
    expect(await respond(await carla.turn('news'))).toBeNull();
    expect(await carla.session()).toBeNull();
  });

  test('when a reply fits no branch but is another flow’s trigger, then that flow starts instead', async () => {
    const org = await system.newOrganization('standard', 'Two Flows Co');
    await addFlow(org, orderFlow());
    const news = await addFlow(org, newsFlow('news'));
    const dan = await customerOf(org, 'Dan');
    await respond(await dan.turn('order'));
    const switched = await respond(await dan.turn('News'));
    expect(switched?.source).toBe(`flow:${news.id}`);
    expect(await dan.session()).toMatchObject({ flow_id: news.id, step_id: 'ask' });
  });
});

describe('hand over, timeout and broken steps', () => {
  test('when the flow hands over to a human, then turnBotsOff is called, its message is answered and the session ends', async () => {
    const org = await system.newOrganization('standard', 'Help Co');
    await addFlow(org, {
      name: 'Help',
      triggers: ['help'],
      steps: [
        {
          id: 'tag',
          type: 'set_field',
          field: 'custom.needs',
          value: 'a person',
          next: 'human',
        },
        {
          id: 'human',
          type: 'hand_over',
          message: { type: 'text', text: 'An agent will write to you, {{name}}' },
        },
      ],
    });
    const eva = await customerOf(org, 'Eva');
    expect(textOf(await respond(await eva.turn('Help')))).toBe('An agent will write to you, Eva');
    expect(botsTurnedOff).toContainEqual({
      company_id: org.company_id,
      contact_id: eva.contact.id,
    });
    expect(await eva.session()).toMatchObject({ status: 'ended', end_reason: 'handed_over' });
    expect((await eva.read()).custom).toEqual({ needs: 'a person' });
  });

  test('when a flow sets the subscription, then contacts stores it and the end message answers', async () => {
    const org = await system.newOrganization('standard', 'Stop Co');
    await addFlow(org, {
      name: 'Stop',
      triggers: ['stop', 'unsubscribe'],
      steps: [
        { id: 'off', type: 'set_field', field: 'subscription', value: 'unsubscribed', next: 'bye' },
        { id: 'bye', type: 'end', message: { type: 'text', text: 'No more news, {{name}}.' } },
      ],
    });
    const ned = await customerOf(org, 'Ned');
    expect(textOf(await respond(await ned.turn('STOP')))).toBe('No more news, Ned.');
    expect((await ned.read()).subscription).toBe('unsubscribed');
  });

  test('when no message comes within the timeout, then the session expires and the next reply is not the flow’s', async () => {
    const org = await system.newOrganization('standard', 'Slow Co');
    await addFlow(org, orderFlow());
    const quick = createFlowResponder({ ...deps, sessionTimeoutMs: 300 });
    const fay = await customerOf(org, 'Fay');
    await quick(await fay.turn('order'));
    await sleep(400);
    expect(await quick(await fay.turn('Yes please', 'yes'))).toBeNull();
    expect(await fay.session()).toMatchObject({ status: 'ended', end_reason: 'expired' });
    // The trigger starts it afresh.
    expect(textOf(await quick(await fay.turn('order')))).toBe(
      'Hi Fay! Do you want to order a shirt?',
    );
    expect(await fay.session()).toMatchObject({ status: 'active', step_id: 'welcome' });
  });

  test('when a message cannot be filled from the contact, then the session ends broken with a log line and the responder answers null', async () => {
    const org = await system.newOrganization('standard', 'Unfillable Co');
    const flow = await addFlow(org, {
      name: 'Needs a city',
      triggers: ['city'],
      steps: [
        { id: 'hello', type: 'message', message: { type: 'text', text: 'In {{custom.city}}?' } },
      ],
    });
    const gus = await customerOf(org, 'Gus');
    expect(await respond(await gus.turn('city'))).toBeNull();
    expect(await gus.session()).toMatchObject({ status: 'ended', end_reason: 'broken' });
    expect(brokenLines(gus.contact.id)).toEqual([
      expect.objectContaining({
        level: 40,
        flow_id: flow.id,
        step_id: 'hello',
        reason: 'its message cannot be filled: no contact.custom.city',
      }),
    ]);
  });

  test('when contacts refuses a step’s change, then the session ends broken with a log line and nothing answers', async () => {
    const org = await system.newOrganization('standard', 'Email Co');
    await addFlow(org, {
      name: 'Email',
      triggers: ['email'],
      steps: [
        {
          id: 'ask',
          type: 'message',
          message: { type: 'text', text: 'Your email?' },
          next: 'save',
        },
        { id: 'save', type: 'set_field', field: 'email', value: '{{reply}}', next: 'thanks' },
        { id: 'thanks', type: 'end', message: { type: 'text', text: 'Saved {{email}}' } },
      ],
    });
    const hal = await customerOf(org, 'Hal');
    await respond(await hal.turn('email'));
    expect(await respond(await hal.turn('not an address'))).toBeNull();
    expect(await hal.session()).toMatchObject({
      status: 'ended',
      end_reason: 'broken',
      answer: null,
      pending_actions: [],
    });
    expect(brokenLines(hal.contact.id)).toHaveLength(1);
    expect((await hal.read()).email).toBeNull();

    const ivy = await customerOf(org, 'Ivy');
    await respond(await ivy.turn('email'));
    expect(textOf(await respond(await ivy.turn('ivy@example.com')))).toBe('Saved ivy@example.com');
    expect((await ivy.read()).email).toBe('ivy@example.com');
  });

  test('when the step a session waits at is removed from the flow, then the next reply ends it broken; a deleted flow ends it quietly', async () => {
    const org = await system.newOrganization('standard', 'Changing Co');
    const flow = await addFlow(org, orderFlow());
    const jo = await customerOf(org, 'Jo');
    const kim = await customerOf(org, 'Kim');
    await respond(await jo.turn('order'));
    await respond(await kim.turn('order'));

    const replaced = await org.api.send('PUT', 'updateFlow', {
      id: flow.id,
      steps: [{ id: 'closed', type: 'end', message: { type: 'text', text: 'Closed' } }],
    });
    expect(replaced.status).toBe(200);
    expect(await respond(await jo.turn('Yes please', 'yes'))).toBeNull();
    expect(await jo.session()).toMatchObject({ status: 'ended', end_reason: 'broken' });
    expect(brokenLines(jo.contact.id)).toHaveLength(1);

    await org.api.send('DELETE', 'deleteFlow', { id: flow.id });
    expect(await respond(await kim.turn('Yes please', 'yes'))).toBeNull();
    expect(await kim.session()).toMatchObject({ status: 'ended', end_reason: 'flow_gone' });
  });
});

describe('redelivery, concurrency and tenant isolation', () => {
  test('when the same inbound message is handled twice, also at once, then the session moves once and both get the same answer', async () => {
    const org = await system.newOrganization('standard', 'Twice Co');
    await addFlow(org, orderFlow());
    const lea = await customerOf(org, 'Lea');
    const start = await lea.turn('order');
    const [first, second] = await Promise.all([respond(start), respond(start)]);
    expect(first).toEqual(second);
    expect(await lea.session()).toMatchObject({ version: 1, step_id: 'welcome' });

    const yes = await lea.turn('Yes please', 'yes');
    const answer = await respond(yes);
    expect(await respond(yes)).toEqual(answer);
    expect(await lea.session()).toMatchObject({ version: 2, step_id: 'ask_size' });

    // Two different messages at once: each moves the session once, one after the other.
    const small = await lea.turn('Small', 'size_s');
    const nonsense = await lea.turn('nonsense');
    await Promise.all([respond(small), respond(nonsense)]);
    expect((await lea.session())?.version).toBe(4);

    // A late redelivery of the first message (a retry after the contact wrote again) moves
    // nothing and gets its first answer.
    expect(await respond(start)).toEqual(first);
    expect(await respond(yes)).toEqual(answer);
    expect((await lea.session())?.version).toBe(4);
  });

  test('when contacts is unavailable during a step, then the responder throws with the move stored, and the redelivered message performs the change and answers', async () => {
    const org = await system.newOrganization('standard', 'Flaky Co');
    await addFlow(org, {
      name: 'Survey',
      triggers: ['survey'],
      steps: [
        { id: 'mark', type: 'add_to_group', group: 'Surveyed', next: 'ask' },
        { id: 'ask', type: 'message', message: { type: 'text', text: 'Rate us, {{name}}' } },
      ],
    });
    let failures = 1;
    const flaky = createFlowResponder({
      ...deps,
      updateContact: async (company_id, contact_id, changes) => {
        if (failures-- > 0) {
          throw new AppError('dependency_unavailable', 'The contacts service is unavailable');
        }
        return deps.updateContact(company_id, contact_id, changes);
      },
    });
    const mia = await customerOf(org, 'Mia');
    const turn = await mia.turn('survey');
    await expect(flaky(turn)).rejects.toThrow('The contacts service is unavailable');
    expect(await mia.session()).toMatchObject({
      version: 1,
      pending_actions: [{ type: 'update_contact', changes: { groups: ['Surveyed'] } }],
    });
    expect((await mia.read()).groups).toEqual([]);

    expect(textOf(await flaky(turn))).toBe('Rate us, Mia');
    expect((await mia.read()).groups.map((group) => group.name)).toEqual(['Surveyed']);
    expect(await mia.session()).toMatchObject({ version: 1, pending_actions: [] });
  });

  test('when another organization’s contact writes a trigger, then only its own flows answer', async () => {
    const owner = await system.newOrganization('standard', 'Owner Shop');
    const stranger = await system.newOrganization('standard', 'Stranger Shop');
    await addFlow(owner, orderFlow('secret'));
    const outsider = await customerOf(stranger, 'Max');
    expect(await respond(await outsider.turn('secret'))).toBeNull();
    expect(await outsider.session()).toBeNull();
  });
});
