import { createHmac } from 'node:crypto';
import { escapeNonAscii, serializeWebhookBody, signPayload } from '../../src/outbound/sign-payload';

describe('signing webhook bodies like Meta', () => {
  it("when the reference test vector is signed, then the header matches whatsapp-api-js's expected value", () => {
    const body =
      "Let's pretend this body is equal to the message object and can handle unicode characters like みどりいろ and J'ai mangé des pâtes";

    expect(signPayload('YOUR_APP_SECRET', body)).toBe(
      'sha256=0363007aabdf1ab579f35936651a460fb5fa1aaf40df98b1264446b72cc96688',
    );
  });

  it('when the test vector is hashed over raw UTF-8 instead, then it gives the other documented value', () => {
    const body =
      "Let's pretend this body is equal to the message object and can handle unicode characters like みどりいろ and J'ai mangé des pâtes";
    const raw = createHmac('sha256', 'YOUR_APP_SECRET').update(body, 'utf8').digest('hex');

    expect(raw.startsWith('5ab50fef')).toBe(true);
    expect(raw.endsWith('1ffbde')).toBe(true);
  });

  it('when text has accents, then they become lowercase \\u escapes', () => {
    expect(escapeNonAscii('é Ü')).toBe('\\u00e9 \\u00dc');
  });

  it('when text has an emoji, then it becomes its UTF-16 surrogate pair', () => {
    expect(escapeNonAscii('👋')).toBe('\\ud83d\\udc4b');
  });

  it('when ASCII text (including @ and /) is escaped, then it is unchanged', () => {
    expect(escapeNonAscii('a@b.com/x "q"')).toBe('a@b.com/x "q"');
  });

  it('when a payload is serialized, then it is compact ASCII JSON that parses back to the same value', () => {
    const payload = { text: { body: 'Olá 👋' }, n: 1 };
    const serialized = serializeWebhookBody(payload);

    expect(serialized).toBe('{"text":{"body":"Ol\\u00e1 \\ud83d\\udc4b"},"n":1}');
    expect(JSON.parse(serialized)).toEqual(payload);
  });

  it('when a serialized body is signed, then a receiver hashing the raw bytes gets the same signature', () => {
    const serialized = serializeWebhookBody({ body: 'pâtes 🍝' });
    const receiverSide = createHmac('sha256', 'secret')
      .update(Buffer.from(serialized))
      .digest('hex');

    expect(signPayload('secret', serialized)).toBe(`sha256=${receiverSide}`);
  });
});
