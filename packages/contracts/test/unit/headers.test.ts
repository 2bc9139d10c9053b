import { ORG_HEADERS, OrgContextSchema, orgHeaders } from '../../src';

const headers = {
  host: 'messaging:8081',
  [ORG_HEADERS.companyId]: '12',
  [ORG_HEADERS.plan]: 'standard',
  [ORG_HEADERS.planStartedAt]: '2026-05-01T08:00:00.000Z',
};

describe('OrgContextSchema', () => {
  test('when the gateway headers are present, then they become the organization context', () => {
    expect(OrgContextSchema.parse(headers)).toEqual({
      company_id: 12,
      plan: 'standard',
      plan_started_at: new Date('2026-05-01T08:00:00.000Z'),
    });
  });

  test('when the context is written back as headers, then it parses to the same context', () => {
    const context = OrgContextSchema.parse(headers);
    expect(OrgContextSchema.parse(orgHeaders(context))).toEqual(context);
  });

  test.each([
    ['the organization id is missing', { [ORG_HEADERS.companyId]: undefined }],
    ['the organization id is not a number', { [ORG_HEADERS.companyId]: 'abc' }],
    ['the organization id is zero', { [ORG_HEADERS.companyId]: '0' }],
    ['the organization id is fractional', { [ORG_HEADERS.companyId]: '1.5' }],
    ['the plan is unknown', { [ORG_HEADERS.plan]: 'gold' }],
    ['the plan start is not a date-time', { [ORG_HEADERS.planStartedAt]: 'last week' }],
  ])('when %s, then the headers are rejected', (_case, override) => {
    expect(OrgContextSchema.safeParse({ ...headers, ...override }).success).toBe(false);
  });
});
