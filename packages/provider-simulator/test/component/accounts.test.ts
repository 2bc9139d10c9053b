import { WebhookReceiver } from './support/webhook-receiver';
import type { TestSimulator } from './support/test-simulator';
import { CHANNEL, startTestSimulator } from './support/test-simulator';

describe('phone number, WABA and account events', () => {
  let t: TestSimulator;
  beforeEach(async () => {
    t = await startTestSimulator({ statusDelaysMs: [] });
  });
  afterEach(() => t.stop());

  it('when the phone number is read with fields, then it answers those fields and id last', async () => {
    const fields = [
      'quality_rating',
      'whatsapp_business_manager_messaging_limit',
      'name_status',
      'verified_name',
      'display_phone_number',
      'status',
      'throughput',
      'platform_type',
      'code_verification_status',
    ];
    const answer = await t.graph(
      'GET',
      `/v23.0/${CHANNEL.phone_number_id}?fields=${fields.join(',')}`,
    );

    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).toEqual([...fields, 'id']);
    expect(answer.body).toEqual({
      quality_rating: 'GREEN',
      whatsapp_business_manager_messaging_limit: 'TIER_2K',
      name_status: 'APPROVED',
      verified_name: 'Lucky Shrub',
      display_phone_number: '+1 555-078-3881',
      status: 'CONNECTED',
      throughput: { level: 'STANDARD' },
      platform_type: 'CLOUD_API',
      code_verification_status: 'VERIFIED',
      id: CHANNEL.phone_number_id,
    });
  });

  it('when no fields are asked for, then the default fields come back', async () => {
    const answer = await t.graph('GET', `/v23.0/${CHANNEL.phone_number_id}`);

    expect(Object.keys(answer.body)).toEqual([
      'verified_name',
      'display_phone_number',
      'quality_rating',
      'id',
    ]);
  });

  it('when an unknown field is asked for, then Graph error 100 names it', async () => {
    const answer = await t.graph('GET', `/v23.0/${CHANNEL.phone_number_id}?fields=colour`);

    expect(answer.body.error.message).toBe(
      '(#100) Tried accessing nonexisting field (colour) on node type (WhatsAppBusinessPhoneNumber)',
    );
  });

  it('when the WABA is read, then account_review_status is there', async () => {
    const answer = await t.graph(
      'GET',
      `/v23.0/${CHANNEL.waba_id}?fields=account_review_status,business_verification_status`,
    );

    expect(answer.body).toEqual({
      account_review_status: 'APPROVED',
      business_verification_status: 'VERIFIED',
      id: CHANNEL.waba_id,
    });
  });

  it('when the WABA phone numbers are listed, then the channel is among them', async () => {
    const answer = await t.graph('GET', `/v23.0/${CHANNEL.waba_id}/phone_numbers`);

    expect(answer.body.data).toEqual([
      expect.objectContaining({ id: CHANNEL.phone_number_id, verified_name: 'Lucky Shrub' }),
    ]);
  });

  it('when a display name is rejected, then phone_number_name_update carries the reason and name_status is DECLINED', async () => {
    const answer = await t.control('POST', '/name-update', {
      phone_number_id: CHANNEL.phone_number_id,
      decision: 'REJECTED',
      requested_verified_name: 'Lucky Shrub Deals',
      rejection_reason: 'NAME_FORMAT_UNACCEPTABLE',
    });

    expect(answer.status).toBe(200);
    const [hook] = await t.receiver.waitFor('phone_number_name_update', () => true);
    expect(hook!.validSignature).toBe(true);
    expect(hook!.body.entry[0]!.changes[0]!.value).toEqual({
      display_phone_number: '15550783881',
      decision: 'REJECTED',
      requested_verified_name: 'Lucky Shrub Deals',
      rejection_reason: 'NAME_FORMAT_UNACCEPTABLE',
    });
    const phone = await t.graph(
      'GET',
      `/v23.0/${CHANNEL.phone_number_id}?fields=name_status,verified_name`,
    );
    expect(phone.body).toMatchObject({ name_status: 'DECLINED', verified_name: 'Lucky Shrub' });
  });

  it('when a display name is approved, then rejection_reason is null and the name changes', async () => {
    await t.control('POST', '/name-update', {
      phone_number_id: CHANNEL.phone_number_id,
      decision: 'APPROVED',
      requested_verified_name: 'Lucky Shrub Co',
    });

    const [hook] = await t.receiver.waitFor('phone_number_name_update', () => true);
    expect(hook!.body.entry[0]!.changes[0]!.value.rejection_reason).toBeNull();
    const phone = await t.graph('GET', `/v23.0/${CHANNEL.phone_number_id}?fields=verified_name`);
    expect(phone.body.verified_name).toBe('Lucky Shrub Co');
  });

  it('when an account update and a review decision are posted, then both webhooks arrive and the WABA changes', async () => {
    await t.control('POST', '/account-update', {
      phone_number_id: CHANNEL.phone_number_id,
      event: 'DISABLED_UPDATE',
      ban_info: { waba_ban_state: 'DISABLE', waba_ban_date: 'April 17, 2025' },
      decision: 'REJECTED',
    });

    const [update] = await t.receiver.waitFor('account_update', () => true);
    const [review] = await t.receiver.waitFor('account_review_update', () => true);
    expect(update!.body.entry[0]!.changes[0]!.value).toEqual({
      event: 'DISABLED_UPDATE',
      ban_info: { waba_ban_state: 'DISABLE', waba_ban_date: 'April 17, 2025' },
    });
    expect(review!.body.entry[0]!.changes[0]!.value).toEqual({ decision: 'REJECTED' });
    const waba = await t.graph('GET', `/v23.0/${CHANNEL.waba_id}?fields=account_review_status`);
    expect(waba.body.account_review_status).toBe('REJECTED');
  });

  it('when the quality drops and the tier rises, then phone_number_quality_update is posted and the fields change', async () => {
    await t.control('POST', '/quality', {
      phone_number_id: CHANNEL.phone_number_id,
      quality_rating: 'YELLOW',
      messaging_limit: 'TIER_10K',
    });

    const [hook] = await t.receiver.waitFor('phone_number_quality_update', () => true);
    expect(hook!.body.entry[0]!.changes[0]!.value).toEqual({
      display_phone_number: '15550783881',
      event: 'UPGRADE',
      old_limit: 'TIER_2K',
      current_limit: 'TIER_10K',
      max_daily_conversations_per_business: 'TIER_10K',
    });
    const phone = await t.graph(
      'GET',
      `/v23.0/${CHANNEL.phone_number_id}?fields=quality_rating,whatsapp_business_manager_messaging_limit`,
    );
    expect(phone.body).toMatchObject({
      quality_rating: 'YELLOW',
      whatsapp_business_manager_messaging_limit: 'TIER_10K',
    });
  });

  it('when a channel registers with a verify token, then the handshake runs and the channel works', async () => {
    const receiver = new WebhookReceiver('new-secret');
    await receiver.start();
    const registration = {
      phone_number_id: '300000000000001',
      waba_id: '300000000000002',
      access_token: 'EAAnew',
      app_secret: 'new-secret',
      webhook_url: receiver.url,
      verify_token: receiver.verifyToken,
      display_phone_number: '15550001234',
      verified_name: 'New Org',
    };

    const created = await t.control('POST', '/channels', registration);
    const again = await t.control('POST', '/channels', registration);
    const badToken = await t.control('POST', '/channels', {
      ...registration,
      verify_token: 'wrong',
    });
    const phone = await t.graph(
      'GET',
      `/v23.0/300000000000001?fields=verified_name`,
      undefined,
      'EAAnew',
    );
    await receiver.stop();

    expect(created.status).toBe(201);
    expect(created.body.channel).not.toHaveProperty('app_secret');
    expect(created.body.verification).toEqual({ ok: true, status: 200 });
    expect(again.status).toBe(200);
    expect(badToken.status).toBe(400);
    expect(badToken.body.code).toBe('verification_failed');
    expect(phone.body.verified_name).toBe('New Org');
  });

  it('when a reset is asked for, then sends and state are forgotten but channels stay', async () => {
    await t.control('POST', '/quality', {
      phone_number_id: CHANNEL.phone_number_id,
      quality_rating: 'RED',
    });

    await t.control('POST', '/reset');

    expect((await t.control('GET', '/webhooks')).body.webhooks).toEqual([]);
    const phone = await t.graph('GET', `/v23.0/${CHANNEL.phone_number_id}?fields=quality_rating`);
    expect(phone.body.quality_rating).toBe('GREEN');
  });
});
