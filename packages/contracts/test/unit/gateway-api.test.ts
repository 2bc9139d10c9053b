import {
  CreateOrganizationRequestSchema,
  CreateOrganizationResponseSchema,
  ERROR_CODES,
  ErrorResponseSchema,
  MeResponseSchema,
} from '../../src';

const organization = {
  company_id: 1,
  name: 'Acme',
  plan: 'free',
  plan_started_at: '2026-11-01T00:00:00.000Z',
};

describe('gateway API schemas', () => {
  test('when an organization is created without a plan, then the plan is free and the name trimmed', () => {
    expect(CreateOrganizationRequestSchema.parse({ name: '  Acme  ' })).toEqual({
      name: 'Acme',
      plan: 'free',
    });
  });

  test.each([
    ['an empty name', { name: '   ' }],
    ['a name over 200 characters', { name: 'x'.repeat(201) }],
    ['an unknown plan', { name: 'Acme', plan: 'gold' }],
    ['an operator in the name', { name: { $gt: '' } }],
  ])('when the request has %s, then it is rejected', (_case, body) => {
    expect(CreateOrganizationRequestSchema.safeParse(body).success).toBe(false);
  });

  test('when a creation answer carries the organization and token, then it is a success envelope', () => {
    const channel = {
      inbound_url: 'http://127.0.0.1:8080/webhook/svc/receive/abc',
      verify_token: 'v',
      app_secret: 's',
      phone_number_id: '106540352242922',
      display_phone_number: '15550783881',
    };
    const answer = { status: 'success', organization, token: 'sb_x', token_id: 'tok_1', channel };
    expect(CreateOrganizationResponseSchema.parse(answer)).toEqual(answer);
  });

  test('when /me answers with an error status, then it does not pass as a success', () => {
    expect(MeResponseSchema.safeParse({ status: 'error', organization }).success).toBe(false);
  });
});

describe('error envelope', () => {
  test('when an invalid token is answered, then the envelope and status match the spec', () => {
    const body = { status: 'error', message: 'Invalid token', code: 'invalid_token' };
    expect(ErrorResponseSchema.parse(body)).toEqual(body);
    expect(ERROR_CODES.invalid_token).toBe(401);
  });

  test('when error codes are listed, then each maps to a 4xx or 5xx status', () => {
    for (const status of Object.values(ERROR_CODES)) {
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(600);
    }
  });
});
