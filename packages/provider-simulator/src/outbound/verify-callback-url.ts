import { randomInt } from 'node:crypto';

export interface VerificationResult {
  ok: boolean;
  status?: number;
  error?: string;
}

/**
 * Meta's subscription handshake: `GET <callback>?hub.mode=subscribe&hub.challenge=…&hub.verify_token=…`;
 * the endpoint must answer 200 with the challenge as its whole body.
 */
export async function verifyCallbackUrl(
  callbackUrl: string,
  verifyToken: string,
  timeoutMs: number,
): Promise<VerificationResult> {
  const challenge = String(randomInt(100_000_000, 2_000_000_000));
  const url = new URL(callbackUrl);
  url.searchParams.set('hub.mode', 'subscribe');
  url.searchParams.set('hub.challenge', challenge);
  url.searchParams.set('hub.verify_token', verifyToken);
  try {
    const response = await fetch(url, {
      headers: { 'user-agent': 'facebookplatform/1.0 (+http://developers.facebook.com)' },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await response.text()).trim();
    if (response.status !== 200) {
      return { ok: false, status: response.status, error: `answered HTTP ${response.status}` };
    }
    if (body !== challenge) {
      return { ok: false, status: response.status, error: 'did not echo hub.challenge' };
    }
    return { ok: true, status: response.status };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
