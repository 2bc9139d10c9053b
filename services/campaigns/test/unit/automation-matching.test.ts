import type { Contact } from '@switchboard/contracts';
import { answerOrder, firstAnswer } from '../../src/domain/automation/answer-inbound-message';
import {
  containsWords,
  isExactMatch,
  normalizeForMatching,
} from '../../src/domain/automation/match-text';
import type { InboundTurn, Responder } from '../../src/domain/automation/responder';
import { fillTextContent } from '../../src/domain/fill-message';

describe('matching texts', () => {
  test.each([
    ['¡Hola, José!', 'hola jose'],
    ['  PRÉÇO???  ', 'preco'],
    ['Ça   va...bien', 'ca va bien'],
    ['what’s up', 'what s up'],
    ['👍', '👍'],
  ])('when %j is normalized, then it is %j', (text, expected) => {
    expect(normalizeForMatching(text)).toBe(expected);
  });

  test('when a trigger is compared, then exact needs the whole message and contains needs whole words', () => {
    const said = normalizeForMatching('What is the PRICE, please?');
    expect(containsWords(said, normalizeForMatching('price'))).toBe(true);
    expect(containsWords(said, normalizeForMatching('the price'))).toBe(true);
    expect(containsWords(said, normalizeForMatching('pric'))).toBe(false);
    expect(containsWords(normalizeForMatching('prices'), 'price')).toBe(false);
    expect(isExactMatch(said, 'price')).toBe(false);
    expect(isExactMatch(normalizeForMatching('Price!'), 'price')).toBe(true);
    expect(containsWords('anything', '')).toBe(false);
  });
});

describe('placeholders', () => {
  const contact = {
    name: 'Ana',
    phone: '393471234567',
    email: null,
    custom: { city: 'Roma', 'first name': 'A' },
  };
  test('when a reply names contact fields, then they are filled and missing ones left empty', () => {
    expect(
      fillTextContent(
        {
          type: 'text',
          message:
            'Hi {{name}} ({{ phone }}) from {{custom.city}}{{custom.zip}} {{email}}{{1}} {{custom.first name}}',
        },
        contact as Pick<Contact, 'name' | 'phone' | 'email' | 'custom'>,
      ).message,
    ).toBe('Hi Ana (393471234567) from Roma {{1}} A');
  });
});

describe('the answer order', () => {
  const turn = {} as InboundTurn;
  const answering =
    (source: string, log: string[]): Responder =>
    async () => {
      log.push(source);
      return { source, content: { type: 'text', message: source } };
    };
  const silent =
    (source: string, log: string[]): Responder =>
    async () => {
      log.push(source);
      return null;
    };

  test('when steps are given, then they are asked flow, exact, contains, bot campaign, welcome, AI bot, and the first answer ends the turn', async () => {
    const log: string[] = [];
    const order = answerOrder({
      flow: silent('flow', log),
      exactReply: silent('exact', log),
      containsReply: silent('contains', log),
      botCampaignKeywords: silent('campaign', log),
      welcomeReply: answering('welcome', log),
      aiBot: answering('ai_bot', log),
    });
    expect((await firstAnswer(order, turn))?.source).toBe('welcome');
    expect(log).toEqual(['flow', 'exact', 'contains', 'campaign', 'welcome']);
  });

  test('when flows and the AI bot are not wired in, then they answer nothing', async () => {
    const log: string[] = [];
    const order = answerOrder({
      exactReply: silent('exact', log),
      containsReply: silent('contains', log),
      botCampaignKeywords: silent('campaign', log),
      welcomeReply: silent('welcome', log),
    });
    expect(order).toHaveLength(6);
    expect(await firstAnswer(order, turn)).toBeNull();
  });
});
