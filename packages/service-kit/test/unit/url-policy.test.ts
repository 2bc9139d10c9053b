import { isPublicAddress, urlPolicyViolation, type UrlPolicy } from '../../src';

describe('isPublicAddress', () => {
  test.each([
    '0.0.0.0',
    '10.0.0.1',
    '100.64.0.1',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.168.1.1',
    '198.18.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
    '2001:db8::1',
    '2002:7f00:1::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    'fe80::1%eth0',
    'not-an-address',
    '',
  ])('when the address is %s, then it is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  test.each([
    '93.184.215.14',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '::ffff:8.8.8.8',
    '2606:4700::1111',
    '2001:4860:4860::8888',
  ])('when the address is %s, then it is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('urlPolicyViolation', () => {
  const resolvingTo = (...addresses: string[]): UrlPolicy => ({
    allowPrivate: false,
    resolve: () => Promise.resolve(addresses),
  });

  test('when private URLs are allowed, then anything goes, http included', async () => {
    const policy: UrlPolicy = {
      allowPrivate: true,
      resolve: () => Promise.reject(new Error('no')),
    };
    expect(await urlPolicyViolation('http://127.0.0.1:3000/in', policy)).toBeUndefined();
  });

  test('when the URL carries a user name or password, then it is refused, even where private URLs are allowed', async () => {
    for (const allowPrivate of [false, true]) {
      const policy = { ...resolvingTo('93.184.215.14'), allowPrivate };
      for (const url of ['https://user:pw@example.com/v1', 'https://key@example.com/v1']) {
        expect(await urlPolicyViolation(url, policy)).toBe(
          'must not carry a user name or password',
        );
      }
    }
  });

  test('when the URL is http, then it is refused', async () => {
    expect(await urlPolicyViolation('http://example.com/in', resolvingTo('93.184.215.14'))).toBe(
      'must be an https:// URL',
    );
  });

  test('when every resolved address is public, then the URL is allowed', async () => {
    expect(
      await urlPolicyViolation(
        'https://example.com/in',
        resolvingTo('93.184.215.14', '2606:2800::1'),
      ),
    ).toBeUndefined();
  });

  test('when any resolved address is private, then the URL is refused', async () => {
    expect(
      await urlPolicyViolation('https://example.com/in', resolvingTo('93.184.215.14', '10.0.0.7')),
    ).toContain('private');
  });

  test('when the host does not resolve, then the URL is refused', async () => {
    const policy: UrlPolicy = {
      allowPrivate: false,
      resolve: () => Promise.reject(new Error('NX')),
    };
    expect(await urlPolicyViolation('https://nowhere.invalid/', policy)).toContain('resolved');
  });

  test('when the host is an address literal, then it is judged without DNS', async () => {
    const policy: UrlPolicy = {
      allowPrivate: false,
      resolve: () => Promise.reject(new Error('no')),
    };
    expect(await urlPolicyViolation('https://8.8.8.8/in', policy)).toBeUndefined();
    expect(await urlPolicyViolation('https://[::1]/in', policy)).toContain('private');
  });
});
