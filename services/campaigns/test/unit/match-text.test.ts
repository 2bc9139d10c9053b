import {
  containsWords,
  normalizeForMatching as normalize,
} from '../../src/domain/automation/match-text';

describe('normalize (what triggers and keywords are compared in)', () => {
  test.each([
    ['¡Hola, Señor!', 'hola senor'],
    ['  ORDER!!  ', 'order'],
    ['Ça   va?', 'ca va'],
    ['e-mail', 'e mail'],
    ['MENÚ', 'menu'],
    ['👍', '👍'],
    ['?!', ''],
  ])('when %j is normalized, then it reads %j', (text, expected) => {
    expect(normalize(text)).toBe(expected);
  });

  test('when a phrase is looked for, then only whole words match', () => {
    expect(containsWords(normalize('Sure, why not'), normalize('sure'))).toBe(true);
    expect(containsWords(normalize('I am unsure'), normalize('sure'))).toBe(false);
    expect(containsWords(normalize('yes please'), normalize('Yes please!'))).toBe(true);
    expect(containsWords('anything', '')).toBe(false);
  });
});
