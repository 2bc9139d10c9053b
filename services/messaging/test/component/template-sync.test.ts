import { TemplatesResponseSchema } from '@switchboard/contracts';
import { startMessagingSystem, waitFor, type MessagingSystem } from '../support/messaging-harness';

jest.setTimeout(60_000);

let system: MessagingSystem;

beforeAll(async () => {
  system = await startMessagingSystem('tplsync', {
    messagingEnv: { TEMPLATE_SYNC_INTERVAL_MS: '1000' },
  });
});

afterAll(async () => {
  await system?.stop();
});

test('when templates change at the provider with no webhook, then the periodic sync brings statuses in and adopts new ones', async () => {
  const org = await system.newOrganization('standard', 'Sync Co');
  const waba_id = system.simulator.state.channels.get(org.created.channel.phone_number_id)!
    .registration.waba_id;
  const made = await system.sim('POST', '/templates', {
    waba_id,
    name: 'made_in_meta',
    language: 'en',
    category: 'UTILITY',
    components: [{ type: 'BODY', text: 'Your code is ready' }],
  });
  const listed = async () =>
    TemplatesResponseSchema.parse((await org.api.get('getTemplates')).body).templates;

  const adopted = await waitFor(async () =>
    (await listed()).find((template) => template.name === 'made_in_meta'),
  );
  expect(adopted).toMatchObject({ status: 'APPROVED', provider_id: made.template.id });

  system.simulator.state.templates.get(made.template.id as string)!.status = 'DISABLED';
  await waitFor(async () =>
    (await listed()).find((template) => template.status === 'DISABLED') ? true : undefined,
  );

  system.simulator.state.templates.delete(made.template.id as string);
  await waitFor(async () =>
    (await listed()).find((template) => template.status === 'DELETED') ? true : undefined,
  );
});
