import { AppError } from '@switchboard/service-kit';
import { buildProviderMessage, checkLimits } from '../../src/domain/sending/build-provider-message';
import type { OutboundContent } from '../../src/domain/sending/send-types';
import { classifyProviderResponse } from '../../src/outbound/provider-failure';
import { TokenBucket } from '../../src/domain/sending/token-bucket';

describe('buildProviderMessage (as the Cloud API documents it)', () => {
  test('when a text is sent, then the body is the Cloud API text message', () => {
    expect(buildProviderMessage('393471234567', { kind: 'text', body: 'Hello' })).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '393471234567',
      type: 'text',
      text: { body: 'Hello' },
    });
  });

  test('when buttons are sent, then the body is an interactive reply-button message', () => {
    const content: OutboundContent = {
      kind: 'buttons',
      body: 'Your workshop is at 9am tomorrow.',
      header: { type: 'text', text: 'Reminder' },
      footer: 'Lucky Shrub',
      buttons: [
        { id: 'change-button', title: 'Change' },
        { id: 'cancel-button', title: 'Cancel' },
      ],
    };
    expect(buildProviderMessage('16505551234', content)).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '16505551234',
      type: 'interactive',
      interactive: {
        type: 'button',
        header: { type: 'text', text: 'Reminder' },
        body: { text: 'Your workshop is at 9am tomorrow.' },
        footer: { text: 'Lucky Shrub' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'change-button', title: 'Change' } },
            { type: 'reply', reply: { id: 'cancel-button', title: 'Cancel' } },
          ],
        },
      },
    });
  });

  test('when media is sent by link, then caption and filename go where the type allows them', () => {
    expect(
      buildProviderMessage('1', {
        kind: 'media',
        media: 'document',
        link: 'https://example.com/a.pdf',
        caption: 'Invoice',
        filename: 'a.pdf',
      }),
    ).toMatchObject({
      type: 'document',
      document: { link: 'https://example.com/a.pdf', caption: 'Invoice', filename: 'a.pdf' },
    });
    const audio = buildProviderMessage('1', {
      kind: 'media',
      media: 'audio',
      mediaId: '1037543291543636',
      caption: 'ignored',
    });
    expect(audio).toMatchObject({ type: 'audio', audio: { id: '1037543291543636' } });
    expect((audio.audio as Record<string, unknown>).caption).toBeUndefined();
  });

  test('when a template is sent, then name, language code and components are passed', () => {
    const components = [{ type: 'body', parameters: [{ type: 'text', text: 'Jessica' }] }];
    expect(
      buildProviderMessage('1', {
        kind: 'template',
        name: 'order_confirmation',
        language: 'en_US',
        components,
      }),
    ).toMatchObject({
      type: 'template',
      template: { name: 'order_confirmation', language: { code: 'en_US' }, components },
    });
  });
});

describe('checkLimits', () => {
  const fails = (content: OutboundContent, field: string) => {
    try {
      checkLimits(content);
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).message).toContain(field);
      return;
    }
    throw new Error('expected a validation error');
  };

  test('when a limit of the provider is exceeded, then the field is named', () => {
    fails({ kind: 'text', body: 'x'.repeat(4097) }, 'message');
    const buttons = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ id: `b${i}`, title: `B${i}` }));
    fails({ kind: 'buttons', body: 'hi', buttons: buttons(4) }, 'buttons');
    fails(
      { kind: 'buttons', body: 'hi', buttons: [{ id: 'a', title: 'x'.repeat(21) }] },
      'buttons.0.title',
    );
    fails(
      {
        kind: 'buttons',
        body: 'hi',
        buttons: [
          { id: 'a', title: 'Same' },
          { id: 'b', title: 'Same' },
        ],
      },
      'buttons.1.title',
    );
    fails({ kind: 'buttons', body: 'hi', footer: 'f'.repeat(61), buttons: buttons(1) }, 'footer');
    fails(
      { kind: 'media', media: 'image', link: 'https://x', caption: 'c'.repeat(1025) },
      'caption',
    );
  });

  test('when text is at the limit counted in characters, then it passes', () => {
    expect(() => checkLimits({ kind: 'text', body: '👍'.repeat(4096) })).not.toThrow();
  });
});

describe('classifyProviderResponse (as the Cloud API documents it)', () => {
  test('when the provider reports throughput or a transient error, then it is retryable', () => {
    for (const code of [130429, 131000, 131016, 133004, 131057]) {
      expect(
        classifyProviderResponse(400, { error: { code, message: `(#${code}) x` } }).retryable,
      ).toBe(true);
    }
    expect(classifyProviderResponse(503, 'Service Unavailable').retryable).toBe(true);
  });

  test('when the request or recipient is at fault, then it is final, with the provider text', () => {
    const failure = classifyProviderResponse(400, {
      error: {
        message: '(#131047) Re-engagement message',
        code: 131047,
        error_data: { details: 'More than 24 hours have passed' },
      },
    });
    expect(failure).toEqual({
      message: '(#131047) Re-engagement message: More than 24 hours have passed',
      code: 131047,
      httpStatus: 400,
      retryable: false,
      kind: 'refused',
    });
    expect(classifyProviderResponse(400, { error: { code: 100 } }).retryable).toBe(false);
  });
});

describe('TokenBucket', () => {
  test('when the burst is spent, then the next take waits one interval per token', () => {
    let now = 0;
    const bucket = new TokenBucket(80, 80, () => now);
    for (let i = 0; i < 80; i++) expect(bucket.tryTake()).toBe(0);
    expect(bucket.tryTake()).toBe(13); // 1/80 s, rounded up
    now += 12.5;
    expect(bucket.tryTake()).toBe(0);
  });

  test('when time passes, then tokens refill only up to the burst', () => {
    let now = 0;
    const bucket = new TokenBucket(10, 2, () => now);
    now += 10_000;
    expect([bucket.tryTake(), bucket.tryTake()]).toEqual([0, 0]);
    expect(bucket.tryTake()).toBeGreaterThan(0);
  });
});
