import { SendMessageRequestSchema, SendTemplateRequestSchema } from '@switchboard/contracts';
import { createSimulator, silentLogger, type Simulator } from '@switchboard/provider-simulator';
import { buildProviderMessage } from '../../src/domain/sending/build-provider-message';
import { contentOfMessage, contentOfTemplate } from '../../src/domain/sending/content-of';

// The Cloud API bodies messaging builds for each message kind, posted to the provider simulator,
// which validates them as Meta documents: what our contract accepts the provider accepts, and
// what our contract refuses at a limit the provider refuses too.

const CHANNEL = {
  phone_number_id: '106540352242922',
  waba_id: '102290129340398',
  access_token: 'EAAcontract-token',
  app_secret: 'contract-secret',
  webhook_url: 'http://127.0.0.1:9/unused',
  display_phone_number: '+1 555-078-3881',
  verified_name: 'Lucky Shrub',
};
const PHONE = '16505551234';

let sim: Simulator;
let url: string;
/** A message the provider accepted earlier: what replies and reactions name. */
let earlier: string;

async function post(body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/v23.0/${CHANNEL.phone_number_id}/messages`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${CHANNEL.access_token}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The request as a customer gives it → our contract → the body we would send. */
function bodyOf(request: Record<string, unknown>) {
  const { phone, ...rest } = SendMessageRequestSchema.parse({ phone: PHONE, ...request });
  const content = contentOfMessage(rest);
  if (content.replyTo) content.replyTo.wamid = earlier;
  if (content.kind === 'reaction') content.to.wamid = earlier;
  return buildProviderMessage(phone, content);
}

beforeAll(async () => {
  // No status webhooks: only the synchronous validation is under test here.
  sim = createSimulator({ statusDelaysMs: [], logger: silentLogger, channels: [CHANNEL] });
  url = (await sim.start(0)).url;
  const first = await post(bodyOf({ message: 'Hello' }));
  earlier = (first.body.messages as { id: string }[])[0]!.id;
});

afterAll(() => sim.stop());

const rows = (count: number, size = 24) =>
  Array.from({ length: count }, (_, i) => ({
    id: `${i}`.padEnd(200, 'i'),
    title: `${i}`.padEnd(size, 't'),
    description: 'd'.repeat(72),
  }));

const KINDS = ['list', 'location', 'contacts', 'reaction', 'sticker', 'audio', 'buttons'];
const TYPE_OF: Record<string, string> = {
  text: 'text',
  list: 'interactive',
  buttons: 'interactive',
  location: 'location',
  contacts: 'contacts',
  reaction: 'reaction',
  sticker: 'sticker',
  audio: 'audio',
};

const accepted: [string, Record<string, unknown>][] = [
  [
    'a list at every limit',
    {
      message: 'b'.repeat(4096),
      header: 'h'.repeat(60),
      footer: 'f'.repeat(60),
      list: {
        button: 'b'.repeat(20),
        sections: [
          { title: 's'.repeat(24), rows: rows(9) },
          { title: 'Other', rows: [{ id: 'last', title: 'Last' }] },
        ],
      },
    },
  ],
  [
    'a one-section list without a title',
    { message: 'Menu', list: { button: 'Open', sections: [{ rows: rows(1) }] } },
  ],
  [
    'a location with name and address',
    { location: { latitude: -90, longitude: 180, name: 'Pole', address: 'South' } },
  ],
  ['a location as numeric strings', { location: { latitude: '12.5', longitude: '-7.25' } }],
  [
    'contact cards with every field',
    {
      contacts: [
        {
          name: { formatted_name: 'Ana Lima', first_name: 'Ana', last_name: 'Lima', prefix: 'Dr.' },
          birthday: '1988-12-31',
          phones: [{ phone: '+55 11 5555 0000', type: 'CELL', wa_id: '551155550000' }],
          emails: [{ email: 'ana@example.com', type: 'HOME' }],
          addresses: [{ street: 'Rua A 1', city: 'São Paulo', country_code: 'BR', type: 'HOME' }],
          org: { company: 'Lima Ltda', department: 'Sales', title: 'Head' },
          urls: [{ url: 'https://lima.example.com', type: 'WORK' }],
        },
        { name: { formatted_name: 'Second' } },
      ],
    },
  ],
  ['a reaction', { reaction: { message_id: 1, emoji: '👍🏽' } }],
  ['a flag reaction', { reaction: { message_id: 1, emoji: '🇮🇹' } }],
  ['a reaction taken back', { reaction: { message_id: 1, emoji: '' } }],
  ['a sticker', { sticker: 'https://cdn.example.com/s.webp' }],
  ['an audio as a reply', { audio: 'https://cdn.example.com/a.ogg', reply_to: 1 }],
  ['a text as a reply', { message: 'Sure', reply_to: 1 }],
  ['buttons as a reply', { message: 'Pick', buttons: ['Yes', 'No'], reply_to: 1 }],
];

describe('each message kind as built, against the provider’s validation', () => {
  test.each(accepted)('when %s is built, then the provider accepts it', async (_, request) => {
    const body = bodyOf(request);
    const kind = Object.keys(request).find((key) => KINDS.includes(key)) ?? 'text';
    expect(body.type).toBe(TYPE_OF[kind]);
    if (kind === 'list') expect(body.interactive).toMatchObject({ type: 'list' });
    if (request.reply_to) expect(body.context).toEqual({ message_id: earlier });
    const answer = await post(body);
    expect([answer.status, answer.body.error]).toEqual([200, undefined]);
  });

  test('when a template is sent as a reply, then the provider accepts its context', async () => {
    const created = await fetch(`${url}/sim/templates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        waba_id: CHANNEL.waba_id,
        name: 'order_update',
        category: 'UTILITY',
        language: 'en_US',
        components: [{ type: 'BODY', text: 'Your order shipped.' }],
      }),
    });
    expect(created.status).toBeLessThan(300);
    const { phone, ...rest } = SendTemplateRequestSchema.parse({
      phone: PHONE,
      template_name: 'order_update',
      template_language: 'en_US',
      reply_to: 1,
    });
    const content = contentOfTemplate(rest);
    content.replyTo!.wamid = earlier;
    const body = buildProviderMessage(phone, content);
    expect(body).toMatchObject({ type: 'template', context: { message_id: earlier } });
    const answer = await post(body);
    expect([answer.status, answer.body.error]).toEqual([200, undefined]);
  });

  // One over each limit: our contract refuses it, and the provider refuses the body built from
  // it without our check.
  const overLimit: [string, Record<string, unknown>][] = [
    ['11 rows', { message: 'M', list: { button: 'B', sections: [{ rows: rows(11) }] } }],
    [
      'a row title of 25',
      { message: 'M', list: { button: 'B', sections: [{ rows: rows(1, 25) }] } },
    ],
    [
      'a list button of 21',
      { message: 'M', list: { button: 'b'.repeat(21), sections: [{ rows: rows(1) }] } },
    ],
    ['a latitude of 90.5', { location: { latitude: 90.5, longitude: 0 } }],
    ['a two-emoji reaction', { reaction: { message_id: 1, emoji: '👍👍' } }],
  ];

  test.each(overLimit)(
    'when %s is asked, then our contract and the provider both refuse it',
    async (_, request) => {
      const parsed = SendMessageRequestSchema.safeParse({ phone: PHONE, ...request });
      expect(parsed.success).toBe(false);
      // Refused for the limit itself, on the field that breaks it.
      const [kind] = Object.keys(request).filter((key) => KINDS.includes(key));
      expect(parsed.error!.issues.map((issue) => issue.path[0])).toEqual([kind]);
      // The provider's side: the same request, built without our contract's check.
      const content = contentOfMessage(request as Parameters<typeof contentOfMessage>[0]);
      if (content.kind === 'reaction') content.to.wamid = earlier;
      const raw = buildProviderMessage(PHONE, content);
      const answer = await post(raw);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ type: 'OAuthException', code: expect.any(Number) });
    },
  );
});
