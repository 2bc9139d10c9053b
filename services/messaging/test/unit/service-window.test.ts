import { SERVICE_WINDOW_MS, outsideServiceWindow } from '../../src/domain/sending/service-window';

const now = new Date('2026-11-26T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('the 24-hour customer service window', () => {
  test('when the contact wrote within 24 hours, then every kind of message may go', () => {
    for (const kind of ['text', 'buttons', 'media', 'template'] as const) {
      expect(outsideServiceWindow({ kind }, ago(SERVICE_WINDOW_MS), now)).toBeUndefined();
    }
  });

  test('when the contact last wrote more than 24 hours ago, then free-form messages are refused naming the window and templates still go', () => {
    const lastWrote = ago(SERVICE_WINDOW_MS + 1);
    for (const kind of ['text', 'buttons', 'media'] as const) {
      expect(outsideServiceWindow({ kind }, lastWrote, now)).toBe(
        'Outside the 24-hour customer service window: the contact last wrote at ' +
          '2026-11-25T11:59:59.999Z, more than 24 hours ago, so the provider delivers only ' +
          'template messages until they write again; send a template (sendtemplatemessage)',
      );
    }
    expect(outsideServiceWindow({ kind: 'template' }, lastWrote, now)).toBeUndefined();
  });

  test('when the contact never wrote (as far as we know), then the send is left to the provider', () => {
    expect(outsideServiceWindow({ kind: 'text' }, null, now)).toBeUndefined();
    expect(outsideServiceWindow({ kind: 'text' }, undefined, now)).toBeUndefined();
  });
});
