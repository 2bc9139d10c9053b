import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt at one of OWASP's recommended settings (N=2^15, r=8, p=3: 32 MiB and a few tens of
 * milliseconds per hash). The parameters are stored with each hash, so they can be raised later
 * and old hashes still verify.
 */
const PARAMETERS = { N: 2 ** 15, r: 8, p: 3 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/**
 * scrypt runs on libuv's thread pool (4 threads), which DNS lookups of the owners' host names
 * share; at most two hashes run at once and the rest wait their turn, so a burst of sign-ins
 * slows sign-ins, not every proxied request.
 */
const MAX_CONCURRENT_HASHES = 2;
let running = 0;
const waiting: (() => void)[] = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  // A finishing hash hands its slot straight to the next in line, so no newcomer slips in between.
  if (running < MAX_CONCURRENT_HASHES) running += 1;
  else await new Promise<void>((go) => waiting.push(go));
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return inTurn(() => deriveNow(password, salt, options));
}

function deriveNow(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  const N = options.N ?? PARAMETERS.N;
  const r = options.r ?? PARAMETERS.r;
  // scrypt needs 128·N·r bytes; node's default ceiling is exactly 32 MiB, so allow twice that.
  const maxmem = 256 * N * r;
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...options, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$<salt>$<hash>` (base64url): everything needed to verify, nothing to reverse. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, PARAMETERS);
  const { N, r, p } = PARAMETERS;
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(N),
    r: Number(r),
    p: Number(p),
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let decoy: Promise<string> | undefined;

/**
 * Checks a password against a hash nobody's password matches: a sign-in for an unknown email
 * takes as long as one for a known email, so the answer's timing does not tell which exist.
 */
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  await verifyPassword(password, await decoy);
  return false;
}
