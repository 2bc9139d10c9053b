import {
  AudiencePageRequestSchema,
  AudienceCountRequestSchema,
  ContactsByIdsRequestSchema,
  ResolveContactRequestSchema,
} from '../../src';

describe('contacts internal API schemas', () => {
  test('when a phone is resolved, then it is normalized like every other phone', () => {
    expect(ResolveContactRequestSchema.parse({ company_id: 3, phone: '+39 347 1234567' })).toEqual({
      company_id: 3,
      phone: '393471234567',
    });
  });

  test('when an audience page is asked without cursor or limit, then it starts at the beginning with 500', () => {
    expect(AudiencePageRequestSchema.parse({ company_id: 3, audience: { type: 'all' } })).toEqual({
      company_id: 3,
      audience: { type: 'all' },
      include_unsubscribed: false,
      after_id: 0,
      limit: 500,
    });
  });

  test.each([
    ['an unknown audience type', { type: 'everyone' }],
    ['groups without ids', { type: 'groups', group_ids: [] }],
    ['contact ids that are text', { type: 'contacts', contact_ids: ['1'] }],
  ])('when the audience is %s, then it is rejected', (_case, audience) => {
    expect(AudienceCountRequestSchema.safeParse({ company_id: 3, audience }).success).toBe(false);
  });

  test('when more than 1000 ids or a limit over 1000 are asked, then the request is rejected', () => {
    const ids = Array.from({ length: 1001 }, (_, i) => i + 1);
    expect(ContactsByIdsRequestSchema.safeParse({ company_id: 3, ids }).success).toBe(false);
    expect(
      AudiencePageRequestSchema.safeParse({ company_id: 3, audience: { type: 'all' }, limit: 1001 })
        .success,
    ).toBe(false);
  });

  test('when company_id is a string, then internal requests are rejected (JSON callers send numbers)', () => {
    expect(
      ResolveContactRequestSchema.safeParse({ company_id: '3', phone: '393471234567' }).success,
    ).toBe(false);
  });
});
