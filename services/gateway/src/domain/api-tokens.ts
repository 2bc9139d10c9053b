import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOKEN_PREFIX = 'sb_';

/** A new secret token (shown once) and the id under which it can be revoked. */
export function generateToken(): { token: string; token_id: string } {
  return {
    token: TOKEN_PREFIX + randomBytes(32).toString('base64url'),
    token_id: 'tok_' + randomBytes(12).toString('hex'),
  };
}

/** Tokens are stored only as SHA-256 hashes: a database leak reveals no usable token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function hashesMatch(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
