// The guarded dispatcher against a real server on 127.0.0.1. No traffic goes anywhere else: other hostnames
// come from injected lookups, and every address that must be refused is refused before a socket exists.
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { CategorizedError } from '../../shared/errors.js';
import type { LookupFn } from '../../shared/net/address-policy.js';
import { closeGuardedAgents, DEFAULT_USER_AGENT, guardedFetch } from '../../shared/net/guarded-fetch.js';

interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const seen: Seen[] = [];
let connections = 0;
let port = 0;
let base = '';
let server: http.Server;
/** Resolved when the socket of the latest /stream-forever or /big-declared request closes. */
let streamClosed: Promise<void> = Promise.resolve();

const LOCAL = { allowPrivate: true };
const PUBLIC_ONLY = { allowPrivate: false };

before(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      route(req, res, body);
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

after(async () => {
  await closeGuardedAgents();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function route(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const redirect = (status: number, location: string) => {
    res.writeHead(status, { location });
    res.end(`moved to ${location}`);
  };
  switch (url.pathname) {
    case '/hello':
      res.setHeader('X-Multi', ['one', 'two']);
      res.setHeader('Content-Type', 'text/plain');
      return void res.end('hello');
    case '/echo':
      res.setHeader('content-type', 'application/json');
      return void res.end(JSON.stringify({ method: req.method, headers: req.headers, body }));
    case '/chain/1':
      return void redirect(302, '/chain/2');
    case '/chain/2':
      return void redirect(301, `${base}/chain/3`);
    case '/chain/3':
      return void redirect(308, '/hello');
    case '/loop/a':
      return void redirect(302, '/loop/b');
    case '/loop/b':
      return void redirect(302, '/loop/a#again');
    case '/to':
      return void redirect(
        Number(url.searchParams.get('status') ?? 302),
        url.searchParams.get('target') ?? '/',
      );
    case '/missing':
      res.writeHead(404, { 'content-type': 'text/plain' });
      return void res.end('missing');
    case '/big-declared':
      streamClosed = closed(req);
      res.writeHead(200, { 'content-length': String(5_000_000) });
      return void res.write(Buffer.alloc(1024)); // and never the rest
    case '/stream-forever':
      streamClosed = closed(req);
      return void streamForever(res);
    case '/trickle':
      return void trickle(res);
    case '/hang':
      return; // never answers
    default:
      res.writeHead(500);
      res.end('no such route');
  }
}

function closed(req: http.IncomingMessage): Promise<void> {
  return new Promise((resolve) => req.socket.once('close', () => resolve()));
}

function streamForever(res: http.ServerResponse): void {
  const chunk = Buffer.alloc(16 * 1024, 'x');
  res.writeHead(200, { 'content-type': 'application/octet-stream' }); // no length: chunked
  const pump = () => {
    while (!res.destroyed && res.write(chunk)) {}
    if (!res.destroyed) res.once('drain', pump);
  };
  pump();
}

function trickle(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/plain' });
  const timer = setInterval(() => res.write('.'), 50);
  res.on('close', () => clearInterval(timer));
}

const staticLookup =
  (table: Record<string, string>): LookupFn =>
  async (hostname): Promise<LookupAddress[]> => {
    const address = table[hostname];
    if (address === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
    }
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };

function categorized(category: string, details?: Record<string, unknown>) {
  return (err: unknown) => {
    assert.ok(err instanceof CategorizedError, `expected a CategorizedError, got ${String(err)}`);
    assert.equal(err.category, category, err.message);
    for (const [key, value] of Object.entries(details ?? {}))
      assert.deepEqual(err.details?.[key], value, key);
    return true;
  };
}

function pathsSeen(): string[] {
  return seen.map((s) => s.path);
}

// ---- Address policy ---------------------------------------------------------------------------------------

test('odd spellings of loopback are refused without any traffic', async () => {
  const before = { connections, requests: seen.length };
  for (const url of [
    `http://2130706433:${port}/hello`,
    `http://127.1:${port}/hello`,
    `http://0x7f.0.0.1:${port}/hello`,
    `http://[::ffff:127.0.0.1]:${port}/hello`,
    `http://127.0.0.1:${port}/hello`,
    `http://[::1]:${port}/hello`,
  ]) {
    await assert.rejects(guardedFetch({ url, policy: PUBLIC_ONLY }), categorized('ssrf_blocked'), url);
  }
  assert.deepEqual({ connections, requests: seen.length }, before);
  // Control: the same spelling does reach the server when private addresses are allowed.
  const res = await guardedFetch({ url: `http://2130706433:${port}/hello`, policy: LOCAL });
  assert.equal(res.status, 200);
});

test('localhost is refused (system resolver, which answers it locally)', async () => {
  const before = connections;
  await assert.rejects(
    guardedFetch({ url: `http://localhost:${port}/hello`, policy: PUBLIC_ONLY }),
    categorized('ssrf_blocked', { host: 'localhost' }),
  );
  assert.equal(connections, before);
});

test('a name that resolves to a private address is refused at connect time', async () => {
  const lookup = staticLookup({ 'internal.test': '10.0.0.1', 'public.test': '127.0.0.1' });
  await assert.rejects(
    guardedFetch({ url: 'http://internal.test/', policy: PUBLIC_ONLY, lookup }),
    (err: unknown) =>
      categorized('ssrf_blocked', { host: 'internal.test' })(err) &&
      (err as Error).message ===
        'refused internal.test: the address policy refuses private, loopback, link-local and metadata addresses',
  );
  const before = connections;
  await assert.rejects(
    guardedFetch({ url: `http://public.test:${port}/hello`, policy: PUBLIC_ONLY, lookup }),
    (err: unknown) =>
      categorized('ssrf_blocked', { host: 'public.test' })(err) &&
      !(err as Error).message.includes('127.0.0.1'),
  );
  assert.equal(connections, before);
});

test('an unknown name is a non-retryable fetch_error', async () => {
  await assert.rejects(
    guardedFetch({ url: 'http://nowhere.test/', policy: PUBLIC_ONLY, lookup: staticLookup({}) }),
    (err: unknown) =>
      categorized('fetch_error', { code: 'ENOTFOUND' })(err) && !(err as CategorizedError).retryable,
  );
});

// Every hop is checked. The policy's isAllowed hook admits only 127.0.0.1, so the test server stands in for
// a public host; the "private" targets are spellings of the same server that the hook refuses
// (::ffff:127.0.0.1). If a hop escaped the check, the server would see /secret, while traffic still stays on
// 127.0.0.1.
test('each redirect hop is checked: a redirect from an allowed host to a refused one stops', async () => {
  const policy = { allowPrivate: false, isAllowed: (ip: string) => ip === '127.0.0.1' };
  const lookup = staticLookup({ 'public.test': '127.0.0.1', 'internal.test': '::ffff:127.0.0.1' });
  const start = `http://public.test:${port}`;

  const ok = await guardedFetch({ url: `${start}/chain/1`, policy, lookup });
  assert.equal(ok.status, 200);
  assert.equal(ok.remoteAddress, '127.0.0.1');

  for (const target of [`http://internal.test:${port}/secret`, `http://[::ffff:127.0.0.1]:${port}/secret`]) {
    const url = `${start}/to?target=${encodeURIComponent(target)}`;
    await assert.rejects(guardedFetch({ url, policy, lookup }), categorized('ssrf_blocked'), target);
    assert.equal(pathsSeen().at(-1), `/to?target=${encodeURIComponent(target)}`);
  }
  assert.ok(!pathsSeen().includes('/secret'));
});

// ---- Fetching ---------------------------------------------------------------------------------------------

test('a loopback server is fetched when private addresses are allowed', async () => {
  const res = await guardedFetch({ url: `${base}/hello`, policy: LOCAL });
  assert.equal(res.status, 200);
  assert.equal(res.url, `${base}/hello`);
  assert.equal(res.body.toString(), 'hello');
  assert.equal(res.headers['content-type'], 'text/plain');
  assert.equal(res.headers['x-multi'], 'one, two');
  assert.ok(Object.keys(res.headers).every((name) => name === name.toLowerCase()));
  assert.deepEqual(res.redirects, []);
  assert.equal(res.truncated, false);
  assert.equal(res.remoteAddress, '127.0.0.1');
  assert.ok(res.durationMs >= 0 && res.durationMs < 5000);
  assert.equal(seen.at(-1)?.headers['user-agent'], DEFAULT_USER_AGENT);
});

test('non-2xx statuses are returned, not thrown', async () => {
  const res = await guardedFetch({ url: `${base}/missing`, policy: LOCAL });
  assert.equal(res.status, 404);
  assert.equal(res.body.toString(), 'missing');
});

test('POST body and headers are delivered', async () => {
  const payload = JSON.stringify({ hello: 'world' });
  const res = await guardedFetch({
    url: `${base}/echo`,
    method: 'post',
    headers: { 'Content-Type': 'application/json', 'X-Custom': 'yes' },
    body: payload,
    userAgent: 'TestAgent/1',
    policy: LOCAL,
  });
  const echo = JSON.parse(res.body.toString());
  assert.equal(echo.method, 'POST');
  assert.equal(echo.body, payload);
  assert.equal(echo.headers['content-type'], 'application/json');
  assert.equal(echo.headers['x-custom'], 'yes');
  assert.equal(echo.headers['user-agent'], 'TestAgent/1');

  const buffered = await guardedFetch({
    url: `${base}/echo`,
    method: 'PUT',
    body: Buffer.from('raw'),
    policy: LOCAL,
  });
  assert.equal(JSON.parse(buffered.body.toString()).body, 'raw');
});

// ---- Redirects --------------------------------------------------------------------------------------------

test('a redirect chain is followed and recorded', async () => {
  const res = await guardedFetch({ url: `${base}/chain/1`, policy: LOCAL });
  assert.equal(res.status, 200);
  assert.equal(res.body.toString(), 'hello');
  assert.equal(res.url, `${base}/hello`);
  assert.deepEqual(res.redirects, [`${base}/chain/2`, `${base}/chain/3`, `${base}/hello`]);
});

test('maxRedirects 0 returns the redirect itself', async () => {
  const res = await guardedFetch({ url: `${base}/chain/1`, policy: LOCAL, maxRedirects: 0 });
  assert.equal(res.status, 302);
  assert.equal(res.headers['location'], '/chain/2');
  assert.deepEqual(res.redirects, []);
});

test('more redirects than allowed is a fetch_error', async () => {
  await assert.rejects(
    guardedFetch({ url: `${base}/chain/1`, policy: LOCAL, maxRedirects: 2 }),
    categorized('fetch_error', { reason: 'too_many_redirects' }),
  );
});

test('a redirect loop is detected', async () => {
  await assert.rejects(
    guardedFetch({ url: `${base}/loop/a`, policy: LOCAL }),
    categorized('fetch_error', { reason: 'redirect_loop' }),
  );
});

test('303 turns POST into GET without a body; 307 keeps both', async () => {
  const to = (status: number) => `${base}/to?status=${status}&target=/echo`;
  const post = { method: 'POST', body: 'payload', headers: { 'content-type': 'text/plain' }, policy: LOCAL };

  const after303 = JSON.parse((await guardedFetch({ url: to(303), ...post })).body.toString());
  assert.equal(after303.method, 'GET');
  assert.equal(after303.body, '');
  assert.equal(after303.headers['content-type'], undefined);

  const after307 = JSON.parse((await guardedFetch({ url: to(307), ...post })).body.toString());
  assert.equal(after307.method, 'POST');
  assert.equal(after307.body, 'payload');
});

test('credentials do not follow a redirect to another origin', async () => {
  const lookup = staticLookup({ 'other.test': '127.0.0.1' });
  const target = encodeURIComponent(`http://other.test:${port}/echo`);
  const res = await guardedFetch({
    url: `${base}/to?target=${target}`,
    headers: { authorization: 'Bearer secret', 'x-keep': 'kept' },
    policy: LOCAL,
    lookup,
  });
  const echo = JSON.parse(res.body.toString());
  assert.equal(echo.headers.authorization, undefined);
  assert.equal(echo.headers['x-keep'], 'kept');
});

test("a site session's origin headers go only to its origin: not another host, port or scheme", async () => {
  const lookup = staticLookup({ 'site.test': '127.0.0.1', 'other.test': '127.0.0.1' });
  const originHeaders = {
    origin: `http://site.test:${port}`,
    headers: { cookie: 'sid=s3cret', 'x-token': 't0ken' },
  };
  const atSite = await guardedFetch({
    url: `http://site.test:${port}/echo`,
    policy: LOCAL,
    lookup,
    originHeaders,
  });
  assert.equal(JSON.parse(atSite.body.toString()).headers.cookie, 'sid=s3cret');
  const target = encodeURIComponent(`http://other.test:${port}/echo`);
  const moved = await guardedFetch({
    url: `http://site.test:${port}/to?target=${target}`,
    policy: LOCAL,
    lookup,
    originHeaders,
  });
  assert.deepEqual(moved.redirects, [`http://other.test:${port}/echo`]);
  const echo = JSON.parse(moved.body.toString());
  assert.equal(echo.headers.cookie, undefined);
  assert.equal(echo.headers['x-token'], undefined);
  const first = seen.findLast((s) => s.path.startsWith('/to?'));
  assert.equal(first?.headers['x-token'], 't0ken', 'the first hop, at the site, had the header');
  for (const origin of [`https://site.test:${port}`, 'http://site.test:1']) {
    const elsewhere = await guardedFetch({
      url: `http://site.test:${port}/echo`,
      policy: LOCAL,
      lookup,
      originHeaders: { ...originHeaders, origin },
    });
    assert.equal(JSON.parse(elsewhere.body.toString()).headers.cookie, undefined, origin);
  }
});

test('a redirect to another scheme is refused', async () => {
  await assert.rejects(
    guardedFetch({ url: `${base}/to?target=${encodeURIComponent('file:///etc/passwd')}`, policy: LOCAL }),
    categorized('fetch_error', { reason: 'invalid_redirect' }),
  );
});

// ---- Limits -----------------------------------------------------------------------------------------------

test('a declared content-length over maxBytes is refused without reading the body', async () => {
  const started = Date.now();
  await assert.rejects(
    guardedFetch({ url: `${base}/big-declared`, policy: LOCAL, maxBytes: 1_000_000, timeoutMs: 5000 }),
    categorized('content_too_large', { declaredBytes: 5_000_000 }),
  );
  // The server never sends the rest, so only an early abort gets here before the timeout.
  assert.ok(Date.now() - started < 2000);
  await withTimeout(streamClosed, 2000, 'the server should see the connection closed');
});

test('an endless chunked body stops as soon as it passes maxBytes', async () => {
  const maxBytes = 256 * 1024;
  const err = await guardedFetch({ url: `${base}/stream-forever`, policy: LOCAL, maxBytes }).then(
    () => assert.fail('expected content_too_large'),
    (e: unknown) => e,
  );
  categorized('content_too_large')(err);
  const received = (err as CategorizedError).details?.['receivedBytes'] as number;
  assert.ok(received > maxBytes && received <= maxBytes + 64 * 1024, `received ${received}`);
  await withTimeout(streamClosed, 2000, 'the server should see the connection closed');
});

test('a server that never answers times out', async () => {
  const started = Date.now();
  await assert.rejects(
    guardedFetch({ url: `${base}/hang`, policy: LOCAL, timeoutMs: 300 }),
    (err: unknown) => categorized('fetch_timeout')(err) && (err as CategorizedError).retryable,
  );
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 250 && elapsed < 3000, `took ${elapsed} ms`);
});

test('the timeout also covers reading a slow body', async () => {
  await assert.rejects(
    guardedFetch({ url: `${base}/trickle`, policy: LOCAL, timeoutMs: 400 }),
    categorized('fetch_timeout'),
  );
});

test('connection refused is a retryable fetch_error', async () => {
  const closedPort = await freePort();
  await assert.rejects(
    guardedFetch({ url: `http://127.0.0.1:${closedPort}/`, policy: LOCAL, timeoutMs: 3000 }),
    (err: unknown) =>
      categorized('fetch_error', { code: 'ECONNREFUSED' })(err) && (err as CategorizedError).retryable,
  );
});

test("the caller's signal aborts the request", async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  await assert.rejects(
    guardedFetch({ url: `${base}/hang`, policy: LOCAL, signal: controller.signal, timeoutMs: 5000 }),
    categorized('fetch_error', { reason: 'aborted' }),
  );
  await assert.rejects(
    guardedFetch({ url: `${base}/hello`, policy: LOCAL, signal: AbortSignal.abort() }),
    categorized('fetch_error', { reason: 'aborted' }),
  );
});

test('invalid URLs are invalid_input', async () => {
  for (const url of ['ftp://127.0.0.1/', 'http://user:pw@127.0.0.1/', 'nonsense']) {
    await assert.rejects(guardedFetch({ url, policy: LOCAL }), categorized('invalid_input'), url);
  }
});

async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port: free } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return free;
}

async function withTimeout(promise: Promise<void>, ms: number, message: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
