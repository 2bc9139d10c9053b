import { hasSecretPath, redactPath, redactPathAndQuery } from '../../src/span-redaction';

describe('span redaction', () => {
  test('when a path carries the inbound webhook token, then the token is blanked and the rest kept', () => {
    expect(redactPath('/webhook/svc/receive/abc123')).toBe('/webhook/svc/receive/REDACTED');
    expect(redactPath('/internal/channels/by-inbound-token/abc123')).toBe(
      '/internal/channels/by-inbound-token/REDACTED',
    );
    expect(hasSecretPath('/api/svc/getMessages')).toBe(false);
  });

  test('when the path is written in other letter cases (routes match regardless of case), then the token is blanked too', () => {
    expect(redactPath('/Webhook/SVC/receive/abc123')).toBe('/Webhook/SVC/receive/REDACTED');
    expect(redactPath('/internal/channels/BY-INBOUND-TOKEN/abc123')).toBe(
      '/internal/channels/BY-INBOUND-TOKEN/REDACTED',
    );
  });

  test('when a query carries the API token or the verify token, then their values are blanked and other parameters kept', () => {
    const redacted = redactPathAndQuery(
      '/webhook/svc/receive/abc?hub.mode=subscribe&hub.verify_token=v3rify&token=t0ken&page=2',
    );
    expect(redacted).toBe(
      '/webhook/svc/receive/REDACTED?hub.mode=subscribe&hub.verify_token=REDACTED&token=REDACTED&page=2',
    );
    for (const secret of ['abc', 'v3rify', 't0ken']) expect(redacted).not.toContain(secret);
  });
});
