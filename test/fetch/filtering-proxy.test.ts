// The browser's filtering proxy: every target is resolved once, every address checked, and the connection
// goes to a checked address. Names come from an injected lookup; 127.0.0.1 stands in for a public host (the
// policy's isAllowed hook admits only it), so refused traffic would land on 127.0.0.2 and be seen there.
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import {
  type FilteringProxy,
  type ProxyDecision,
  REFUSAL_HEADER,
  startFilteringProxy,
} from '../../activities/fetching/browser/filtering-proxy.js';

let proxy: FilteringProxy;
let port = 0;
const servers: http.Server[] = [];
const hits: Record<string, string[]> = { '127.0.0.1': [], '127.0.0.2': [] };
const lookups: string[] = [];
const decisions: ProxyDecision[] = [];
let rebindCalls = 0;

const TABLE: Record<string, string[]> = {
  'public.test': ['127.0.0.1'],
  'internal.test': ['10.0.0.1'],
  'mixed.test': ['127.0.0.1', '10.0.0.1'],
};

async function lookup(hostname: string): Promise<LookupAddress[]> {
  lookups.push(hostname);
  // Answers a public address first and a different one afterwards: a proxy that resolved twice would
  // connect to the second.
  if (hostname === 'rebind.test')
    return [{ address: rebindCalls++ === 0 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
  const addresses = TABLE[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: 4 }));
}

async function listen(host: string, wanted: number): Promise<number> {
  const server = http.createServer((req, res) => {
    hits[host]!.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`hello from ${host}`);
  });
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(wanted, host, resolve);
  });
  return (server.address() as AddressInfo).port;
}

before(async () => {
  port = await listen('127.0.0.1', 0);
  await listen('127.0.0.2', port);
  proxy = await startFilteringProxy({
    policy: { allowPrivate: false, isAllowed: (ip) => ip === '127.0.0.1' },
    lookup,
    onDecision: (d) => decisions.push(d),
  });
});

after(async () => {
  await proxy.close();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function viaProxy(url: string): Promise<Answer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: proxy.port,
        method: 'GET',
        path: url,
        headers: { host: target.host },
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Opens a CONNECT tunnel and, when it is granted, sends one GET through it. */
function tunnel(authority: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port: proxy.port,
      method: 'CONNECT',
      path: authority,
      agent: false,
    });
    req.on('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        return resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
      }
      let raw = '';
      socket.setEncoding('utf8');
      socket.on('data', (c: string) => {
        raw += c;
      });
      socket.on('end', () =>
        resolve({ status: 200, headers: res.headers, body: raw.split('\r\n\r\n')[1] ?? '' }),
      );
      socket.write(`GET /tunnelled HTTP/1.0\r\nHost: ${authority}\r\nConnection: close\r\n\r\n`);
    });
    req.on('error', reject);
    req.end();
  });
}

test('an allowed name is forwarded to the address that was checked', async () => {
  const res = await viaProxy(`http://public.test:${port}/hello`);
  assert.equal(res.status, 200);
  assert.equal(res.body, 'hello from 127.0.0.1');
  assert.deepEqual(decisions.at(-1), { host: 'public.test', port, allowed: true, addresses: ['127.0.0.1'] });
});

test('a name with a private address, or with one among several, is refused before any connection', async () => {
  for (const host of ['internal.test', 'mixed.test']) {
    const res = await viaProxy(`http://${host}:${port}/secret`);
    assert.equal(res.status, 403, host);
    assert.equal(res.headers[REFUSAL_HEADER], 'ssrf_blocked');
    assert.match(res.body, /the address policy refuses private, loopback, link-local and metadata addresses/);
    assert.doesNotMatch(res.body, /10\.0\.0\.1/); // the resolved address is never echoed
    assert.equal(proxy.refusalFor(`http://${host}:${port}/other`)?.category, 'ssrf_blocked');
  }
  assert.ok(!hits['127.0.0.1']!.includes('/secret'));
});

test('private literals (metadata address, other loopback, IPv6) are refused without a lookup', async () => {
  const before = lookups.length;
  for (const url of [
    'http://169.254.169.254/latest/meta-data/',
    `http://127.0.0.2:${port}/secret`,
    `http://[::1]:${port}/secret`,
    `http://[::ffff:127.0.0.2]:${port}/secret`,
  ]) {
    const res = await viaProxy(url);
    assert.equal(res.status, 403, url);
    assert.equal(res.headers[REFUSAL_HEADER], 'ssrf_blocked', url);
  }
  assert.equal(lookups.length, before);
  assert.deepEqual(hits['127.0.0.2'], []);
  assert.equal(proxy.refusalFor('http://169.254.169.254/x')?.host, '169.254.169.254');
});

test('CONNECT tunnels obey the same policy', async () => {
  const ok = await tunnel(`public.test:${port}`);
  assert.equal(ok.status, 200);
  assert.equal(ok.body, 'hello from 127.0.0.1');
  for (const authority of [`internal.test:${port}`, `127.0.0.2:${port}`, '169.254.169.254:443']) {
    const refused = await tunnel(authority);
    assert.equal(refused.status, 403, authority);
    assert.equal(refused.headers[REFUSAL_HEADER], 'ssrf_blocked');
  }
  assert.equal(proxy.refusalFor(`https://internal.test:${port}/`)?.category, 'ssrf_blocked');
  assert.deepEqual(hits['127.0.0.2'], []);
});

test('a name is resolved once per request: no second lookup to rebind between check and connect', async () => {
  const before = lookups.filter((h) => h === 'rebind.test').length;
  const res = await viaProxy(`http://rebind.test:${port}/first`);
  assert.equal(res.body, 'hello from 127.0.0.1');
  assert.equal(lookups.filter((h) => h === 'rebind.test').length, before + 1);
  // The next request resolves again, gets the other address, and is refused for it.
  const second = await viaProxy(`http://rebind.test:${port}/second`);
  assert.equal(second.status, 403);
  assert.deepEqual(hits['127.0.0.2'], []);
});

test('an unknown name fails as fetch_error, not as a refusal', async () => {
  const res = await viaProxy('http://nowhere.test/');
  assert.equal(res.status, 502);
  assert.equal(res.headers[REFUSAL_HEADER], 'fetch_error');
  assert.equal(proxy.refusalFor('http://nowhere.test/')?.message, 'could not resolve nowhere.test');
});
