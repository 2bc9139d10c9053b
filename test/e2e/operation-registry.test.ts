import { API_OPERATIONS, ErrorResponseSchema } from '@switchboard/contracts';
import { startE2eSystem, type E2eSystem } from '../support/e2e-system';
import { jsonBody } from '../support/test-infra';

jest.setTimeout(180_000);

let e2e: E2eSystem;

beforeAll(async () => {
  e2e = await startE2eSystem('registry');
});

afterAll(async () => {
  await e2e?.stop();
});

/** An answer that no handler gave: an unknown operation, a missing route or a refused method. */
function unanswered(status: number, body: unknown): string | undefined {
  if (status === 405 || status === 501) return `${status}`;
  const error = ErrorResponseSchema.safeParse(body);
  if (
    status === 404 &&
    error.success &&
    /^(No route for|Unknown operation)/.test(error.data.message)
  ) {
    return error.data.message;
  }
  return undefined;
}

describe('the operation registry, every service its own process', () => {
  test('when every defined /api/svc operation is called with each of its methods, then the gateway routes it to a service that handles it', async () => {
    const { token } = await e2e.createOrganization('Registry Co');
    const misses: string[] = [];
    for (const operation of API_OPERATIONS.values()) {
      for (const method of operation.methods) {
        const response = await fetch(`${e2e.gateway}${operation.path}`, {
          method: method.toUpperCase(),
          headers: {
            authorization: `Bearer ${token}`,
            ...(method === 'get' ? {} : { 'content-type': 'application/json' }),
          },
          ...(method === 'get' ? {} : { body: '{}' }),
        });
        const body = await jsonBody(response).catch(() => undefined);
        const miss = unanswered(response.status, body);
        if (miss)
          misses.push(`${method.toUpperCase()} ${operation.name} (${operation.owner}): ${miss}`);
      }
    }
    expect(misses).toEqual([]);
    expect(API_OPERATIONS.size).toBeGreaterThan(40);
  });
});
