import { createServer, type Server } from 'node:net';
import type { DnsLookup } from '@switchboard/service-kit';
import { fetchTemplateMedia } from '../../src/domain/templates/upload-template-media';

let server: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** A name service that gives `answers` in turn, one per question. */
function answering(...answers: string[]) {
  const asked: string[] = [];
  const dnsLookup: DnsLookup = (hostname, _options, callback) => {
    asked.push(hostname);
    const address = answers[Math.min(asked.length, answers.length) - 1]!;
    callback(null, [{ address, family: 4 }]);
  };
  return { dnsLookup, asked };
}

describe('fetching a template header from a URL', () => {
  test('when the name answers a public address at the check and the loopback at the connect, then nothing connects and the URL is refused', async () => {
    const dns = answering('93.184.215.14', '127.0.0.1');
    const fetched = fetchTemplateMedia(`https://media.example.com:${port}/header.png`, {
      maxBytes: 1_000_000,
      allowPrivateUrls: false,
      dnsLookup: dns.dnsLookup,
    });
    await expect(fetched).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('resolves to 127.0.0.1, which template media may not call'),
    });
    expect(dns.asked).toEqual(['media.example.com', 'media.example.com']);
    expect(connections).toBe(0);
  });

  test('when the URL carries a user name and password, then it is refused before any lookup, even where private URLs are allowed', async () => {
    const dns = answering('93.184.215.14');
    for (const allowPrivateUrls of [false, true]) {
      const fetched = fetchTemplateMedia(`https://user:pw@media.example.com:${port}/h.png`, {
        maxBytes: 1_000_000,
        allowPrivateUrls,
        dnsLookup: dns.dnsLookup,
      });
      await expect(fetched).rejects.toMatchObject({
        code: 'validation_failed',
        message: 'url: must not carry a user name or password',
      });
    }
    expect(dns.asked).toEqual([]);
    expect(connections).toBe(0);
  });
});
