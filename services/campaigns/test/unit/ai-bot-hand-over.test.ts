import { splitHandOver } from '../../src/domain/automation/ai-bot/ai-bot-responder';

describe("the AI bot's hand-over marker", () => {
  test.each([
    ['A colleague will write to you. [handover]', 'A colleague will write to you.'],
    ['[HANDOVER]', ''],
    ['Sure [hand over] a person will help', 'Sure a person will help'],
    ['[ hand_over ] One moment', 'One moment'],
  ])('when the answer is %j, then it hands over and the text sent is %j', (answer, text) => {
    expect(splitHandOver(answer)).toEqual({ text, handOver: true });
  });

  test('when the answer has no marker, then it is sent as it is (trimmed) and nobody is handed over', () => {
    expect(splitHandOver('  We open at 9 [see site]  ')).toEqual({
      text: 'We open at 9 [see site]',
      handOver: false,
    });
  });
});
