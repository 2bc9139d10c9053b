import type { TestSimulator } from './support/test-simulator';
import { CHANNEL, startTestSimulator, textMessage } from './support/test-simulator';

const OTHER = {
  phone_number_id: '200000000000001',
  waba_id: '200000000000002',
  access_token: 'EAAother-token',
  app_secret: 'other-secret',
  webhook_url: 'http://127.0.0.1:9/unused',
  display_phone_number: '15550009999',
  verified_name: 'Other Co',
};

describe('bearer tokens and Graph routing', () => {
  let t: TestSimulator;
  beforeAll(async () => {
    t = await startTestSimulator({
      statusDelaysMs: [],
      accessTokens: ['global-admin-token'],
      channels: [OTHER],
    });
  });
  afterAll(() => t.stop());

  const path = `/v23.0/${CHANNEL.phone_number_id}/messages`;

  it('when the bearer token is wrong, then 401 with Graph error 190', async () => {
    const answer = await t.graph('POST', path, textMessage('16505551234', 'hi'), 'wrong-token');

    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({
      error: {
        message: expect.stringMatching(/^\(#190\) /),
        type: 'OAuthException',
        code: 190,
        fbtrace_id: expect.any(String),
      },
    });
  });

  it('when no Authorization header is sent, then 401 with 190', async () => {
    const answer = await t.graph('POST', path, textMessage('16505551234', 'hi'), null);

    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe(190);
  });

  it('when the token belongs to another channel, then the number looks nonexistent (100, subcode 33)', async () => {
    const answer = await t.graph(
      'POST',
      path,
      textMessage('16505551234', 'hi'),
      OTHER.access_token,
    );

    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 100, error_subcode: 33 });
    expect(answer.body.error.message).toMatch(
      /^Unsupported post request\. Object with ID '106540352242922'/,
    );
  });

  it('when a simulator-wide token is used, then every number accepts it', async () => {
    expect(
      (await t.graph('POST', path, textMessage('16505551234', 'hi'), 'global-admin-token')).status,
    ).toBe(200);
  });

  it('when the token comes as ?access_token=, then it is accepted like Graph does', async () => {
    const answer = await t.graph(
      'GET',
      `/v23.0/${CHANNEL.phone_number_id}?access_token=${CHANNEL.access_token}`,
      undefined,
      null,
    );

    expect(answer.status).toBe(200);
  });

  it('when the path has unknown components, then 2500', async () => {
    const answer = await t.graph('GET', `/v23.0/${CHANNEL.phone_number_id}/nonsense`);

    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 2500,
      message: 'Unknown path components: /nonsense',
    });
  });

  it('when a control route is called, then no bearer is needed', async () => {
    expect((await t.control('GET', '/channels')).status).toBe(200);
  });

  it('when the answer comes back, then it names the API version in facebook-api-version', async () => {
    const answer = await t.graph('GET', `/v25.0/${CHANNEL.phone_number_id}`);

    expect(answer.headers.get('facebook-api-version')).toBe('v25.0');
  });
});
