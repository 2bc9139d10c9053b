import { accountDecisionOf, nameDecisionOf } from '../../src/domain/receiving/account-notices';
import { describeInbound, replyIdOf } from '../../src/domain/receiving/describe-inbound';
import { describeStatusError } from '../../src/domain/receiving/record-statuses';
import { createKeyedLock } from '../../src/domain/keyed-lock';
import {
  callbackDataOf,
  callbackSubjectOf,
  messageIdOfCallbackData,
  stableEventId,
} from '../../src/domain/message-events';

describe('replyIdOf (automated replies match a chosen button or row by id)', () => {
  test.each([
    [
      {
        type: 'interactive',
        interactive: { type: 'button_reply', button_reply: { id: 'b1', title: 'Yes' } },
      },
      'b1',
    ],
    [
      {
        type: 'interactive',
        interactive: { type: 'list_reply', list_reply: { id: 'r7', title: 'Row' } },
      },
      'r7',
    ],
    [{ type: 'button', button: { payload: 'STOP', text: 'Stop' } }, 'STOP'],
    [{ type: 'text', text: { body: 'b1' } }, undefined],
    [
      { type: 'interactive', interactive: { type: 'nfm_reply', nfm_reply: { body: 'x' } } },
      undefined,
    ],
  ])('when the provider sends %j, then the reply id is %p', (message, id) => {
    expect(replyIdOf(message)).toBe(id);
  });
});

describe('describeInbound (as the Cloud API documents it)', () => {
  test.each([
    [{ type: 'text', text: { body: 'Hi' } }, 'text', 'Hi'],
    [{ type: 'image', image: { caption: 'Receipt', id: '1' } }, 'image', 'Receipt'],
    [{ type: 'document', document: { filename: 'a.pdf' } }, 'document', 'a.pdf'],
    [{ type: 'audio', audio: { voice: false } }, 'audio', '[audio]'],
    [
      { type: 'interactive', interactive: { type: 'nfm_reply', nfm_reply: { body: 'Sent' } } },
      'interactive',
      'Sent',
    ],
    [{ type: 'reaction', reaction: { message_id: 'wamid.x' } }, 'reaction', '[reaction removed]'],
    [
      { type: 'location', location: { latitude: '1.5', longitude: '2', address: 'Main St' } },
      'location',
      'Main St (1.5, 2)',
    ],
    [{ type: 'system', system: { body: 'Changed number' } }, 'system', 'Changed number'],
    [{ type: 'order', order: {} }, 'order', '[order]'],
    [{ type: 'ephemeral' }, 'ephemeral', '[ephemeral]'],
    [{}, 'unknown', '[unknown]'],
  ])('when the provider sends %j, then the type is %s and the text %p', (message, type, text) => {
    expect(describeInbound(message)).toEqual({ type, text });
  });
});

describe('account and name decisions (as the Cloud API documents it)', () => {
  test('when a review is decided, then the account status follows the decision', () => {
    expect(accountDecisionOf('account_review_update', { decision: 'APPROVED' })).toEqual({
      decision: 'APPROVED',
      account_status: 'active',
    });
    expect(accountDecisionOf('account_review_update', { decision: 'PENDING' })).toEqual({
      decision: 'PENDING',
      account_status: 'pending_review',
    });
  });

  test('when the account is banned, in either shape of ban_info, then the ban state is the decision', () => {
    const value = (state: unknown) => ({
      event: 'DISABLED_UPDATE',
      ban_info: { waba_ban_state: state },
    });
    expect(accountDecisionOf('account_update', value('DISABLE'))).toEqual({
      decision: 'DISABLE',
      account_status: 'disabled',
    });
    expect(accountDecisionOf('account_update', value(['REINSTATE']))).toEqual({
      decision: 'REINSTATE',
      account_status: 'active',
    });
  });

  test('when an update does not touch the account status, then there is no decision', () => {
    expect(accountDecisionOf('account_update', { event: 'PARTNER_ADDED' })).toBeNull();
    expect(accountDecisionOf('phone_number_quality_update', { event: 'UPGRADE' })).toBeNull();
  });

  test('when a display name is rejected without a reason, then the reason is UNKNOWN; approved has none', () => {
    expect(
      nameDecisionOf({
        decision: 'REJECTED',
        display_phone_number: '15550783881',
        requested_verified_name: 'Shrub',
      }),
    ).toEqual({
      decision: 'REJECTED',
      phone_number: '15550783881',
      requested_name: 'Shrub',
      rejection_reason: 'UNKNOWN',
    });
    expect(
      nameDecisionOf({ decision: 'APPROVED', rejection_reason: 'NAME_NOT_CONSISTENT' })
        ?.rejection_reason,
    ).toBeNull();
  });
});

describe('describeStatusError', () => {
  test('when a failed status carries errors, then code, title and details are kept', () => {
    expect(
      describeStatusError([
        {
          code: 131047,
          title: 'Re-engagement message',
          error_data: { details: 'More than 24 hours' },
        },
      ]),
    ).toBe('(#131047) Re-engagement message: More than 24 hours');
    expect(describeStatusError(undefined)).toBe('The provider reported the message as failed');
  });
});

describe('stableEventId', () => {
  test('when the same fact is named twice, then the id is the same valid UUID; another fact differs', () => {
    const id = stableEventId('db', 'message:1:message_sent');
    expect(id).toBe(stableEventId('db', 'message:1:message_sent'));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(stableEventId('db', 'message:2:message_sent')).not.toBe(id);
    expect(stableEventId('other', 'message:1:message_sent')).not.toBe(id);
  });
});

describe('biz_opaque_callback_data', () => {
  test('when a send names its message, contact and campaign, then a status gives them back; an older send named only the message', () => {
    const data = callbackDataOf({ id: 41, contact_id: 7, campaign_id: 3 });
    expect(data).toBe('sb:41:7:3');
    expect(callbackSubjectOf(data)).toEqual({ id: 41, contact_id: 7, campaign_id: 3 });
    expect(callbackSubjectOf(callbackDataOf({ id: 42, contact_id: 7 }))).toEqual({
      id: 42,
      contact_id: 7,
      campaign_id: null,
    });
    expect(callbackSubjectOf('sb:43')).toEqual({ id: 43 });
    expect(messageIdOfCallbackData('sb:41:7:3')).toBe(41);
    expect(messageIdOfCallbackData('sb:43')).toBe(43);
  });

  test('when the data is not ours, then nothing is named', () => {
    for (const value of ['sb:', 'sb:1:2', 'sb:1:2:3:4', 'xx:1', 'sb:a:1:1', 1, null, undefined]) {
      expect(callbackSubjectOf(value)).toBeUndefined();
    }
  });
});

describe('createKeyedLock', () => {
  test('when work for one key overlaps, then it runs one at a time; other keys run freely', async () => {
    const lock = createKeyedLock();
    const order: string[] = [];
    const step = (name: string, ms: number) => async () => {
      order.push(`${name} start`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      order.push(`${name} end`);
    };
    await Promise.all([
      lock('a', step('a1', 20)),
      lock('a', step('a2', 1)),
      lock('b', step('b1', 1)),
    ]);
    expect(order.indexOf('a1 end')).toBeLessThan(order.indexOf('a2 start'));
    expect(order.indexOf('b1 end')).toBeLessThan(order.indexOf('a1 end'));
  });

  test('when work fails, then the next work for the key still runs', async () => {
    const lock = createKeyedLock();
    await expect(lock('k', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(lock('k', () => Promise.resolve(7))).resolves.toBe(7);
  });
});
