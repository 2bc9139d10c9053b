import { SendMessageRequestSchema } from '@switchboard/contracts';
import type { CloudApiClient, CloudApiResult, SendAccepted } from '../../src/outbound/cloud-api';
import { classifyProviderResponse, unreachableFailure } from '../../src/outbound/provider-failure';
import { contentOfMessage } from '../../src/domain/sending/content-of';
import { createPacing, deliverToProvider } from '../../src/domain/sending/deliver-to-provider';

/** A Cloud API client that answers from a script, one answer per call. */
function scriptedClient(answers: CloudApiResult<SendAccepted>[], circuitOpen = false) {
  let calls = 0;
  const client: CloudApiClient = {
    sendMessage: async () => answers[Math.min(calls++, answers.length - 1)]!,
    uploadMedia: async () => ({ ok: true, data: { id: '1' } }),
    markRead: async () => ({ ok: true, data: true }),
    getNode: async () => ({ ok: true, data: {} }),
    createTemplate: async () => ({
      ok: true,
      data: { id: '1', status: 'PENDING', category: null },
    }),
    listTemplates: async () => ({ ok: true, data: { templates: [], after: null } }),
    deleteTemplate: async () => ({ ok: true, data: true }),
    uploadTemplateMedia: async () => ({ ok: true, data: { handle: 'h' } }),
    isCircuitOpen: () => circuitOpen,
  };
  return { client, calls: () => calls };
}

const accepted: CloudApiResult<SendAccepted> = { ok: true, data: { wamid: 'wamid.OK' } };
const throttled = {
  ok: false as const,
  failure: classifyProviderResponse(400, { error: { code: 130429 } }),
};
const refused = {
  ok: false as const,
  failure: classifyProviderResponse(400, { error: { code: 131026 } }),
};
const policy = { maxAttempts: 4, baseDelayMs: 1, budgetMs: 1_000 };
const pacing = createPacing(1_000);

describe('deliverToProvider', () => {
  test('when the provider throttles then accepts, then the send is retried and accepted', async () => {
    const { client, calls } = scriptedClient([throttled, throttled, accepted]);
    const result = await deliverToProvider(client, pacing, '1', {}, policy);
    expect(result).toEqual({ ok: true, wamid: 'wamid.OK', attempts: 3 });
    expect(calls()).toBe(3);
  });

  test('when the provider refuses, then there is no retry', async () => {
    const { client, calls } = scriptedClient([refused, accepted]);
    const result = await deliverToProvider(client, pacing, '1', {}, policy);
    expect(result.ok).toBe(false);
    expect(calls()).toBe(1);
  });

  test('when failures go on, then attempts stop at the maximum', async () => {
    const { client, calls } = scriptedClient([{ ok: false, failure: unreachableFailure('down') }]);
    const result = await deliverToProvider(client, pacing, '1', {}, policy);
    expect(result).toMatchObject({ ok: false, attempts: 4 });
    expect(calls()).toBe(4);
  });

  test('when the next wait would pass the budget or the breaker is open, then it stops at once', async () => {
    const slow = scriptedClient([throttled]);
    const short = await deliverToProvider(
      slow.client,
      pacing,
      '1',
      {},
      {
        ...policy,
        baseDelayMs: 5_000,
      },
    );
    expect(short.attempts).toBe(1);
    const open = scriptedClient([{ ok: false, failure: unreachableFailure('open') }], true);
    expect((await deliverToProvider(open.client, pacing, '1', {}, policy)).attempts).toBe(1);
  });
});

describe('contentOfMessage (the message of sendMessageToPhoneNumber)', () => {
  const parse = (body: Record<string, unknown>) => {
    const { phone: _phone, ...rest } = SendMessageRequestSchema.parse({
      phone: '393471234567',
      ...body,
    });
    return contentOfMessage(rest);
  };

  test('when buttons come as a form list or comma text, then they become reply buttons', () => {
    expect(parse({ message: 'Pick', buttons: 'Yes, No' })).toMatchObject({
      kind: 'buttons',
      buttons: [
        { id: 'Yes', title: 'Yes' },
        { id: 'No', title: 'No' },
      ],
    });
    expect(parse({ message: 'Pick', buttons: '[{"id":"a","title":"A"}]' })).toMatchObject({
      kind: 'buttons',
      buttons: [{ id: 'a', title: 'A' }],
    });
  });

  test('when an image comes with buttons, then it is the header; without, the text is its caption', () => {
    expect(
      parse({ message: 'Pick', buttons: ['Ok'], image: 'https://x.test/a.jpg', header: 'ignored' }),
    ).toMatchObject({ kind: 'buttons', header: { type: 'image', link: 'https://x.test/a.jpg' } });
    expect(parse({ message: 'Look', image: 'https://x.test/a.jpg' })).toEqual({
      kind: 'media',
      media: 'image',
      link: 'https://x.test/a.jpg',
      caption: 'Look',
    });
  });

  test('when header and footer come without buttons, then the request is refused naming both (a text has neither)', () => {
    const refused = SendMessageRequestSchema.safeParse({
      phone: '393471234567',
      message: 'Hi',
      header: 'H',
      footer: 'F',
    });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((issue) => issue.path.join('.'))).toEqual([
      'header',
      'footer',
    ]);
    expect(parse({ message: 'Hi', header: ' ', footer: '' })).toEqual({ kind: 'text', body: 'Hi' });
  });
});

describe('pacing per phone number', () => {
  test('when numbers have their own send rates, then each is paced by its own bucket and rate', () => {
    const frozen = () => 1_000;
    const paced = createPacing(80, frozen);
    // A number limited to 2 messages a second: two go at once, the third waits half a second.
    expect([paced.tryTake('111', 2), paced.tryTake('111', 2), paced.tryTake('111', 2)]).toEqual([
      0, 0, 500,
    ]);
    // Another number of the same organization is not held back by it, at the default rate.
    const other = Array.from({ length: 80 }, () => paced.tryTake('222'));
    expect(other.every((wait) => wait === 0)).toBe(true);
    expect(paced.tryTake('222')).toBeGreaterThan(0);
    // A changed rate starts the number afresh at that rate.
    expect(paced.tryTake('111', 5)).toBe(0);
  });
});
