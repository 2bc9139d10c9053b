import { AppError } from '@switchboard/service-kit';
import {
  newCustomFields,
  planAIBotChange,
  planMakeContactChanges,
  planUpdateContactChanges,
} from '../../src/domain/plan-contact-changes';

const existing = {
  name: 'Ana',
  phone: '393471234567',
  email: 'ana@example.com',
  language: null,
  subscription: 'subscribed' as const,
  group_ids: [1, 2],
  custom: { city: 'Rome', tier: 'gold' },
  ai_bot_enabled: false,
};

describe('planning a makeContact on an existing phone', () => {
  test('when nothing differs, then there is nothing to write', () => {
    expect(
      planMakeContactChanges(existing, { name: 'Ana', custom: { city: 'Rome' } }, [2]),
    ).toBeNull();
  });

  test('when name, custom fields and groups are given, then the name is replaced, custom merged and groups added', () => {
    const plan = planMakeContactChanges(
      existing,
      { name: 'Ana R.', custom: { city: 'Milan', tier: null, age: '41', gone: null } },
      [2, 3, 3],
    );
    expect(plan).toEqual({
      set: { name: 'Ana R.', 'custom.city': 'Milan', 'custom.age': '41' },
      unset: ['custom.tier'],
      addGroupIds: [3],
    });
  });

  test('when email is not given, then it is kept; null clears it', () => {
    expect(planMakeContactChanges(existing, { name: 'Ana' }, [])).toBeNull();
    expect(planMakeContactChanges(existing, { name: 'Ana', email: null }, [])?.set).toEqual({
      email: null,
    });
  });

  test('when the merge would pass 50 custom fields, then it is refused naming custom', () => {
    const many = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'v']));
    expect(() => planMakeContactChanges(existing, { name: 'Ana', custom: many }, [])).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        message: expect.stringMatching(/^custom: /),
      }),
    );
    expect(() => planMakeContactChanges(existing, { name: 'Ana', custom: many }, [])).toThrow(
      AppError,
    );
  });
});

describe('planning updateContact and updateAIBot', () => {
  test('when only some writable fields are given, then only the changed ones are written', () => {
    expect(
      planUpdateContactChanges(existing, {
        name: 'Ana',
        phone: '15550109999',
        language: 'pt_BR',
        subscription: 'subscribed',
      }),
    ).toEqual({ set: { phone: '15550109999', language: 'pt_BR' }, unset: [], addGroupIds: [] });
  });

  test('when language and email are cleared, then they are set to null', () => {
    expect(planUpdateContactChanges(existing, { email: null, language: null })?.set).toEqual({
      email: null,
    });
  });

  test('when the AI bot flag already has the value, then there is nothing to write', () => {
    expect(planAIBotChange(existing, false)).toBeNull();
    expect(planAIBotChange(existing, true)?.set).toEqual({ ai_bot_enabled: true });
  });
});

test('when a new contact gets custom fields with null values, then those are left out', () => {
  expect(newCustomFields({ city: 'Rome', gone: null })).toEqual({ city: 'Rome' });
  expect(newCustomFields(undefined)).toEqual({});
});
