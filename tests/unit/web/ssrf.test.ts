/**
 * The SSRF matrix of issue 8 against POST /api/scrape: every private, local or odd-scheme target is refused with a
 * clear message, and nothing connects to it: a canary listening on loopback (IPv4 and IPv6, the port the URLs name)
 * sees zero connections, and node:http / node:https are never asked to connect for a refused URL.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ScrapeResponse } from '../../../src/protocol/web';
import { addressRange } from '../../../src/server/net/ssrf';
import { startCanary, startTestHost, webGateway, html } from './helpers';

let canary: Awaited<ReturnType<typeof startCanary>>;
let host: Awaited<ReturnType<typeof startTestHost>>;
let gw: Awaited<ReturnType<typeof webGateway>>;

beforeAll(async () => {
  canary = await startCanary();
  host = await startTestHost({
    '/ok': html('<article><p>Allowed page text that is long enough to read.</p></article>'),
    '/to-canary': (_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${canary.port}/` }).end(),
    '/to-canary-v6': (_req, res) => res.writeHead(301, { location: `http://[::ffff:127.0.0.1]:${canary.port}/` }).end(),
    '/to-file': (_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end(),
    '/to-rebind': (_req, res) => res.writeHead(307, { location: `http://rebind.example:${canary.port}/` }).end(),
  });
  gw = await webGateway({
    scrapeTest: {
      allow: [{ address: '127.0.0.1', port: host.port }],
      // A "public" name that resolves to a private address, one that mixes answers, and one that resolves nowhere.
      resolver: async (name) => {
        if (name === 'rebind.example') return [{ address: '127.0.0.1', family: 4 }];
        if (name === 'metadata.example') return [{ address: '169.254.169.254', family: 4 }];
        if (name === 'mixed.example') return [{ address: '203.0.113.9', family: 4 }, { address: '10.0.0.7', family: 4 }];
        if (name === 'v6private.example') return [{ address: 'fd12:3456::1', family: 6 }];
        throw new Error('ENOTFOUND');
      },
    },
  });
  await gw.credit(1_000_000n);
});
afterAll(async () => {
  await gw.close();
  await host.close();
  await canary.close();
});

const P = () => canary.port;

const PRIVATE_TARGETS: [string, () => string][] = [
  ['127.0.0.1', () => `http://127.0.0.1:${P()}/`],
  ['127.1', () => `http://127.1:${P()}/`],
  ['2130706433', () => `http://2130706433:${P()}/`],
  ['0x7f.0.0.1', () => `http://0x7f.0.0.1:${P()}/`],
  ['0177.0.0.1', () => `http://0177.0.0.1:${P()}/`],
  ['[::1]', () => `http://[::1]:${P()}/`],
  ['[::ffff:127.0.0.1]', () => `http://[::ffff:127.0.0.1]:${P()}/`],
  ['[::127.0.0.1] (IPv4-compatible)', () => `http://[::127.0.0.1]:${P()}/`],
  ['[::ffff:169.254.169.254]', () => `http://[::ffff:169.254.169.254]/latest/meta-data/`],
  ['169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/'],
  ['0.0.0.0', () => `http://0.0.0.0:${P()}/`],
  ['0 (short for 0.0.0.0)', () => `http://0:${P()}/`],
  ['10/8', () => 'http://10.1.2.3/'],
  ['172.16/12', () => 'http://172.31.255.254/'],
  ['192.168/16', () => 'https://192.168.0.1/'],
  ['100.64/10 (CGNAT)', () => 'http://100.100.100.200/'],
  ['fc00::/7', () => 'http://[fd00::1]/'],
  ['fe80::/10', () => 'http://[fe80::1]/'],
  ['multicast', () => 'http://224.0.0.1/'],
  ['broadcast', () => 'http://255.255.255.255/'],
  ['a public name resolving to loopback', () => `http://rebind.example:${P()}/`],
  ['a public name resolving to the metadata address', () => 'http://metadata.example/'],
  ['a name with one private answer among public ones', () => 'http://mixed.example/'],
  ['a name resolving to a unique-local IPv6 address', () => 'http://v6private.example/'],
];

async function scrape(urls: string[]): Promise<{ status: number; body: ScrapeResponse & { error?: string; message?: string } }> {
  const res = await gw.post('/api/scrape', { urls, requestId: `req-${Math.random().toString(36).slice(2)}` });
  return { status: res.status, body: (await res.json()) as ScrapeResponse & { error?: string; message?: string } };
}

describe('the SSRF guard', () => {
  it.each(PRIVATE_TARGETS)('refuses %s without connecting', async (_label, target) => {
    const httpSpy = vi.spyOn(http, 'request');
    const httpsSpy = vi.spyOn(https, 'request');
    try {
      const before = await gw.balance();
      const { status, body } = await scrape([target()]);
      expect(status).toBe(200);
      expect(body.pages).toEqual([]);
      expect(body.failures).toHaveLength(1);
      expect(body.failures[0]?.error).toBe('PRIVATE_ADDRESS');
      expect(body.failures[0]?.message).toMatch(/^This address is private or local, so it cannot be scraped/);
      expect(httpSpy).not.toHaveBeenCalled();
      expect(httpsSpy).not.toHaveBeenCalled();
      // Nothing charged for a refused page.
      expect((await gw.balance()).usdMicro).toBe(before.usdMicro);
    } finally {
      httpSpy.mockRestore();
      httpsSpy.mockRestore();
    }
    expect(canary.connections()).toBe(0);
  });

  it.each([
    ['file:', 'file:///etc/passwd'],
    ['gopher:', 'gopher://127.0.0.1:70/_GET'],
    ['ftp:', 'ftp://127.0.0.1/'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['javascript:', 'javascript:alert(1)'],
  ])('refuses the %s scheme', async (scheme, target) => {
    const { body } = await scrape([target]);
    expect(body.failures[0]?.error).toBe('SCHEME_NOT_ALLOWED');
    expect(body.failures[0]?.message).toBe(`Only http and https pages can be scraped, not ${scheme}`);
    expect(canary.connections()).toBe(0);
  });

  it('refuses a redirect from an allowed host to a private one, in any spelling or by name', async () => {
    for (const path of ['/to-canary', '/to-canary-v6', '/to-rebind']) {
      const { body } = await scrape([`${host.url}${path}`]);
      expect(body.failures[0]?.error).toBe('PRIVATE_ADDRESS');
      expect(host.hits.get(path)).toBe(1);
    }
    const { body } = await scrape([`${host.url}/to-file`]);
    expect(body.failures[0]?.error).toBe('SCHEME_NOT_ALLOWED');
    expect(canary.connections()).toBe(0);
  });

  it('refuses a 26th URL before fetching anything', async () => {
    const urls = Array.from({ length: 26 }, (_, i) => `${host.url}/ok?n=${i}`);
    const hitsBefore = host.hits.get('/ok') ?? 0;
    const { status, body } = await scrape(urls);
    expect(status).toBe(400);
    expect(body.error).toBe('TOO_MANY_URLS');
    expect(body.message).toBe('At most 25 URLs can be scraped for one message');
    expect(host.hits.get('/ok') ?? 0).toBe(hitsBefore);
    // The same URL 26 times is one URL.
    const same = await scrape(Array.from({ length: 26 }, () => `${host.url}/ok`));
    expect(same.status).toBe(200);
    expect(same.body.pages).toHaveLength(1);
  });

  it('reaches the test host only through the in-process test allowance (exact address and port)', async () => {
    const { body } = await scrape([`${host.url}/ok`, `http://127.0.0.1:${P()}/ok`]);
    expect(body.pages.map((p) => p.url)).toEqual([`${host.url}/ok`]);
    expect(body.failures.map((f) => f.error)).toEqual(['PRIVATE_ADDRESS']);
    expect(canary.connections()).toBe(0);
  });
});

describe('DNS rebinding', () => {
  it('connects to the address it checked: a name that resolves to an allowed address, then to a private one, never reaches the private one', async () => {
    // The allowed host on 127.0.0.2; a canary on 127.0.0.1 (and ::1) at the same port, where the name points next
    // and where the system resolver sends "localhost". The guard must connect to what it vetted, not look again.
    const good = await startTestHost({ '/page': html('<article><p>The page the guard checked, read from the checked address.</p></article>', 'Checked') }, '127.0.0.2');
    let hits = 0;
    const sockets = new Set<net.Socket>();
    const servers = ['127.0.0.1', '::1'].map((address) => {
      const server = net.createServer((socket) => {
        hits++;
        sockets.add(socket);
        socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 6\r\n\r\nCANARY');
      });
      return new Promise<net.Server | null>((resolve) => {
        server.once('error', () => resolve(null)); // no IPv6 loopback here: the IPv4 canary still stands
        server.listen(good.port, address, () => resolve(server));
      });
    });
    const listening = (await Promise.all(servers)).filter((s): s is net.Server => s !== null);
    expect(listening.length).toBeGreaterThan(0);
    const asked: string[] = [];
    const rebinding = await webGateway({
      scrapeTest: {
        allow: [{ address: '127.0.0.2', port: good.port }],
        resolver: async (name) => {
          asked.push(name);
          return [{ address: asked.length === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
        },
      },
    });
    try {
      await rebinding.credit(1_000_000n);
      const res = await rebinding.post('/api/scrape', { urls: [`http://localhost:${good.port}/page`], requestId: 'rebind-once' });
      const body = (await res.json()) as ScrapeResponse;
      expect(body.failures).toEqual([]);
      expect(body.pages.map((p) => [p.title, p.content])).toEqual([['Checked', 'The page the guard checked, read from the checked address.']]);
      expect(good.hits.get('/page')).toBe(1);
      expect(good.hosts.at(-1)).toBe(`localhost:${good.port}`); // the name is still the Host, only the address is pinned
      expect(asked).toEqual(['localhost']); // resolved once, for the check
      expect(hits).toBe(0);
    } finally {
      await rebinding.close();
      await good.close();
      for (const s of sockets) s.destroy();
      await Promise.all(listening.map((s) => new Promise<void>((r) => s.close(() => r()))));
    }
  });
});

describe('addressRange', () => {
  it('accepts public unicast addresses only', () => {
    expect(addressRange('93.184.216.34')).toBeNull();
    expect(addressRange('2606:4700:4700::1111')).toBeNull();
    for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '100.64.0.1', '169.254.1.1', '0.0.0.0', '224.0.0.251', '255.255.255.255', '192.0.2.1', '198.18.0.1', '240.0.0.1']) {
      expect(addressRange(a), a).not.toBeNull();
    }
    for (const a of ['::1', '::', 'fe80::1', 'fc00::1', 'fd00::1', 'ff02::1', '::ffff:8.8.8.8', '::ffff:0:8.8.8.8', '::8.8.8.8', '64:ff9b::8.8.8.8', '2002:7f00:1::', '2001::1', '2001:db8::1', '100::1']) {
      expect(addressRange(a), a).not.toBeNull();
    }
    expect(addressRange('not an address')).toBe('invalid');
  });
});
