import { z } from 'zod';
import { CreateCampaignRequestSchema, AddFlowRequestSchema } from '../../src';
import { listInput } from '../../src/http/list-input';

describe('listInput: a list as an array, a JSON text of one, or comma-separated text', () => {
  const words = listInput(z.array(z.string(), { error: 'must be a list of words' }));
  const keywords = listInput(z.array(z.string()), { dropEmpty: true });

  test('when the list comes in each of its forms, then it is read as the same array', () => {
    for (const input of [['a', 'b c'], '["a","b c"]', ' a , b c ']) {
      expect(words.parse(input)).toEqual(['a', 'b c']);
    }
    expect(words.parse('')).toEqual([]);
  });

  test('when a comma-separated list has empty parts, then only dropEmpty leaves them out', () => {
    expect(words.parse('a,,b,')).toEqual(['a', '', 'b', '']);
    expect(keywords.parse('a,,b,')).toEqual(['a', 'b']);
  });

  test('when the text is not a list, then the list schema names what it must be', () => {
    expect(words.safeParse(7).error?.issues[0]?.message).toBe('must be a list of words');
    // Text that starts like JSON but is not is refused, not split on its commas.
    expect(words.safeParse('[broken, text').error?.issues[0]?.message).toBe(
      'must be a list of words',
    );
  });

  test('when a bot campaign’s or a flow’s keywords come as JSON text, then they are read as JSON, not split on its commas', () => {
    const campaign = CreateCampaignRequestSchema.parse({
      name: 'Bot',
      type: 'bot',
      message: { type: 'text', text: 'Hi' },
      keywords: '["price, please", "cost"]',
    });
    expect(campaign.keywords).toEqual(['price, please', 'cost']);
    expect(AddFlowRequestSchema.shape.triggers.parse('order, buy ,')).toEqual(['order', 'buy']);
  });
});
