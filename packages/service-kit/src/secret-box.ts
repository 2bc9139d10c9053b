import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { z } from 'zod';

const LEGACY_VERSION = 'v1';
const VERSION = 'v2';
const KEY_BYTES = 32;
const KID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
/** The id of the key derived from the internal secret (used when no key is configured). */
export const DERIVED_KID = 'internal';
/** The id of a service's former single key (`WEBHOOK_SECRET_ENCRYPTION_KEY`, …) in the ring. */
export const LEGACY_KID = 'legacy';
const RESERVED_KIDS = [DERIVED_KID, LEGACY_KID];

/**
 * Secrets we must use later in the clear (webhook signing secrets, the AI bot's API keys, channel
 * credentials) cannot be hashed; they are encrypted at rest (AES-256-GCM) so that a copy of the
 * database alone does not give them away. Sealed form: `v2.<kid>.<iv>.<tag>.<ciphertext>`; the
 * key id lets keys rotate (seal with the current key, open with any key still in the ring).
 * Values sealed before key ids existed (`v1.<iv>.<tag>.<ciphertext>`) open with the legacy key.
 */
export interface SecretBox {
  seal(secret: string): string;
  open(sealed: string): string;
  /** True when `sealed` was sealed with the current key (a re-seal leaves it alone). */
  isCurrent(sealed: string): boolean;
  /** The prefix every value sealed with the current key starts with (to query stale values). */
  readonly currentPrefix: string;
  /**
   * A keyed hash (HMAC-SHA-256) of a secret that is looked up by value (`<kid>.<hash>`): store it
   * in an indexed field. `digests` gives it under every key in the ring, for lookups while a
   * rotation is under way.
   */
  digest(secret: string): string;
  digests(secret: string): string[];
}

export interface RingKey {
  kid: string;
  key: Buffer;
}

export interface KeyRing {
  /** Seals; opens. */
  current: RingKey;
  /** Open only: keys being retired, or about to become current on every replica. */
  others?: RingKey[];
  /** Opens `v1.` values, sealed before key ids existed. */
  legacy?: Buffer;
}

/** A configured encryption key: 32 bytes, base64; optional (the legacy per-service variables). */
export const encryptionKeySchema = z
  .string()
  .optional()
  .refine((value) => value === undefined || Buffer.from(value, 'base64').length === KEY_BYTES, {
    message: 'must be 32 bytes, base64-encoded',
  });

/**
 * `SECRET_ENCRYPTION_KEYS`: `kid:base64key[,kid:base64key…]`, the first seals, every one opens.
 * Each key is 32 random bytes (`openssl rand -base64 32`).
 */
export const secretKeysSchema = z
  .string()
  .optional()
  .transform((value, context) => {
    if (value === undefined || value.trim() === '') return undefined;
    const keys: Array<{ kid: string; key: string }> = [];
    for (const entry of value.split(',').map((part) => part.trim())) {
      const at = entry.indexOf(':');
      const kid = entry.slice(0, at);
      const key = entry.slice(at + 1);
      if (at < 0 || !KID_PATTERN.test(kid) || RESERVED_KIDS.includes(kid)) {
        context.addIssue({
          code: 'custom',
          message: `each entry is kid:base64key, kid of 1-32 letters, digits, _ or - (not ${RESERVED_KIDS.join(' or ')})`,
        });
        return z.NEVER;
      }
      if (Buffer.from(key, 'base64').length !== KEY_BYTES) {
        context.addIssue({
          code: 'custom',
          message: `key ${kid} must be 32 bytes, base64-encoded`,
        });
        return z.NEVER;
      }
      if (keys.some((known) => known.kid === kid)) {
        context.addIssue({ code: 'custom', message: `key id ${kid} appears twice` });
        return z.NEVER;
      }
      keys.push({ kid, key });
    }
    return keys;
  });

export type SecretKeys = z.infer<typeof secretKeysSchema>;

export interface SecretPurpose {
  salt: string;
  info: string;
}

/**
 * The configured key, or one derived (HKDF-SHA256) from the internal secret when none is
 * configured. `purpose` keeps the keys of different uses apart; changing it makes what was
 * sealed before unreadable.
 */
export function secretEncryptionKey(
  configured: string | undefined,
  internalSecret: string,
  purpose: SecretPurpose,
): Buffer {
  if (configured) return Buffer.from(configured, 'base64');
  return keyForPurpose(internalSecret, purpose);
}

/** A key of one use only (HKDF-SHA256), so that no two uses share a key. */
function keyForPurpose(material: string | Buffer, purpose: SecretPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', material, purpose.salt, purpose.info, KEY_BYTES));
}

/**
 * The ring of one use (`purpose`): every configured key, narrowed to that use with HKDF, the
 * first sealing; then the service's former single key, if it has one; then the key derived from
 * the internal secret, which always opens (it sealed everything before keys were configured) and
 * seals only when no key is configured.
 */
export function secretKeyRing(options: {
  keys: SecretKeys;
  internalSecret: string;
  purpose: SecretPurpose;
  /** The key `v1.` values were sealed with; by default the derived one (as it always was). */
  legacyKey?: string;
}): KeyRing {
  const derived = {
    kid: DERIVED_KID,
    key: secretEncryptionKey(undefined, options.internalSecret, options.purpose),
  };
  const configured = (options.keys ?? []).map(({ kid, key }) => ({
    kid,
    key: keyForPurpose(Buffer.from(key, 'base64'), options.purpose),
  }));
  const legacy = options.legacyKey
    ? [{ kid: LEGACY_KID, key: Buffer.from(options.legacyKey, 'base64') }]
    : [];
  const ring: RingKey[] = [...configured, ...legacy, derived];
  return { current: ring[0]!, others: ring.slice(1), legacy: (legacy[0] ?? derived).key };
}

const lookupKey = (key: Buffer) =>
  Buffer.from(hkdfSync('sha256', key, 'switchboard-lookup', 'secret-digest', KEY_BYTES));

export function createSecretBox(ring: KeyRing): SecretBox {
  const all = [ring.current, ...(ring.others ?? [])];
  for (const { key } of [...all, ...(ring.legacy ? [{ key: ring.legacy }] : [])]) {
    if (key.length !== KEY_BYTES) throw new RangeError('a secret encryption key must be 32 bytes');
  }
  const byKid = new Map(all.map((entry) => [entry.kid, entry.key]));
  const lookupKeys = all.map((entry) => ({ kid: entry.kid, key: lookupKey(entry.key) }));
  const currentPrefix = `${VERSION}.${ring.current.kid}.`;
  // Callers open the same secrets again and again (every webhook attempt signs): keep them.
  const opened = new Map<string, string>();

  function decrypt(key: Buffer | undefined, iv?: string, tag?: string, data?: string): string {
    if (!key || !iv || !tag || !data) throw new Error('not a sealed secret, or its key is unknown');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString(
      'utf8',
    );
  }
  const hmac = (entry: { kid: string; key: Buffer }, secret: string) =>
    `${entry.kid}.${createHmac('sha256', entry.key).update(secret, 'utf8').digest('base64url')}`;

  return {
    currentPrefix,
    seal(secret) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', ring.current.key, iv);
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      const parts = [iv, tag, sealed].map((part) => part.toString('base64'));
      return [VERSION, ring.current.kid, ...parts].join('.');
    },
    open(sealed) {
      const known = opened.get(sealed);
      if (known !== undefined) return known;
      const [version, ...parts] = sealed.split('.');
      let secret: string;
      if (version === VERSION) {
        const [kid, iv, tag, data] = parts;
        secret = decrypt(byKid.get(kid ?? ''), iv, tag, data);
      } else if (version === LEGACY_VERSION) {
        secret = decrypt(ring.legacy, ...parts);
      } else {
        throw new Error('not a sealed secret, or its key is unknown');
      }
      if (opened.size >= 10_000) opened.clear();
      opened.set(sealed, secret);
      return secret;
    },
    isCurrent: (sealed) => sealed.startsWith(currentPrefix),
    digest: (secret) => hmac(lookupKeys[0]!, secret),
    digests: (secret) => lookupKeys.map((entry) => hmac(entry, secret)),
  };
}

/** What seals and opens one use's secrets in a service, from its config. */
export function serviceSecretBox(options: {
  config: {
    SECRET_ENCRYPTION_KEYS?: SecretKeys;
    INTERNAL_API_SECRET: string;
    NODE_ENV: string;
  };
  purpose: SecretPurpose;
  legacyKey?: string;
  logger: { warn(message: string): void };
}): SecretBox {
  const { config } = options;
  if (!config.SECRET_ENCRYPTION_KEYS && !options.legacyKey && config.NODE_ENV === 'production') {
    options.logger.warn(
      'SECRET_ENCRYPTION_KEYS is not set; deriving keys from the internal secret',
    );
  }
  return createSecretBox(
    secretKeyRing({
      keys: config.SECRET_ENCRYPTION_KEYS,
      internalSecret: config.INTERNAL_API_SECRET,
      purpose: options.purpose,
      legacyKey: options.legacyKey,
    }),
  );
}

/** A box of one key (tests, tools): key id `k`. */
export const singleKeySecretBox = (key: Buffer): SecretBox =>
  createSecretBox({ current: { kid: 'k', key } });
