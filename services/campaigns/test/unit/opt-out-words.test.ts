import { keywordList, optOutIntentOf } from '../../src/domain/automation/opt-out';

const settings = {
  stopWords: keywordList('STOP, UNSUBSCRIBE,PARAR, BAJA,ARRÊT,STOPP,OPT OUT,,'),
  startWords: keywordList('START,UNSTOP'),
};
const turn = (text: string, type = 'text', reply_id?: string) => ({
  message: {
    message_id: 1,
    message_wamid: 'wamid.x',
    type,
    text,
    ...(reply_id ? { reply_id } : {}),
  },
});

describe('opt-out words', () => {
  test('when the configured list is read, then words are normalized, deduplicated and blanks dropped', () => {
    expect(settings.stopWords).toEqual([
      'stop',
      'unsubscribe',
      'parar',
      'baja',
      'arret',
      'stopp',
      'opt out',
    ]);
  });

  test.each(['STOP', 'stop', ' Stop! ', 'arrêt', 'ARRET.', 'Baja', 'opt-out', 'Opt out'])(
    'when the whole message is %p, then it unsubscribes',
    (text) => {
      expect(optOutIntentOf(turn(text), settings)).toBe('unsubscribed');
    },
  );

  test.each(['start', 'UNSTOP!'])(
    'when the whole message is %p, then it subscribes again',
    (text) => {
      expect(optOutIntentOf(turn(text), settings)).toBe('subscribed');
    },
  );

  test.each(['please stop', 'stopped', 'non-stop', 'startup', ''])(
    'when the message is %p, then it is no opt-out or opt-in',
    (text) => {
      expect(optOutIntentOf(turn(text), settings)).toBeNull();
    },
  );

  test('when a quick-reply button carries STOP as its payload, then it unsubscribes', () => {
    expect(optOutIntentOf(turn('Stop promotions', 'button', 'STOP'), settings)).toBe(
      'unsubscribed',
    );
  });

  test('when an image caption says stop, then it is not an opt-out', () => {
    expect(optOutIntentOf(turn('STOP', 'image'), settings)).toBeNull();
  });
});
