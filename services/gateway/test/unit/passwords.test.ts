import { hashPassword, verifyAgainstDecoy, verifyPassword } from '../../src/domain/passwords';

// Each hash is memory-hard on purpose (tens of ms alone); on a loaded machine a handful of them
// outlast jest's 5 s default, which is not what these tests judge.
jest.setTimeout(60_000);

describe('passwords', () => {
  test('when a password is hashed, then only its own text verifies, the hash holds scrypt parameters and a fresh salt, and never the password', async () => {
    const first = await hashPassword('correct horse battery');
    const second = await hashPassword('correct horse battery');
    expect(first).toMatch(/^scrypt\$32768\$8\$3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('correct');
    expect(await verifyPassword('correct horse battery', first)).toBe(true);
    expect(await verifyPassword('correct horse batterY', first)).toBe(false);
    expect(await verifyPassword('correct horse battery', 'bcrypt$whatever')).toBe(false);
  });

  test('when a password is compared with the decoy, then it never matches', async () => {
    expect(await verifyAgainstDecoy('anything at all')).toBe(false);
  });
});

describe('password hashing in turn', () => {
  test('when many passwords are checked at once, then every answer is right (at most two hash at a time, the rest wait)', async () => {
    const stored = await hashPassword('the right one');
    const answers = await Promise.all(
      ['the right one', 'wrong', 'the right one', 'wrong', 'wrong'].map((given) =>
        verifyPassword(given, stored),
      ),
    );
    expect(answers).toEqual([true, false, true, false, false]);
  });
});
