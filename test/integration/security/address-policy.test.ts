// Link-local and cloud metadata addresses are refused whatever ALLOW_PRIVATE_ADDRESSES says (that switch is
// for local test servers), and a refusal names the policy, never the address a name resolved to. Unit checks
// of the policy and the guarded fetch (injected lookups), then the real service with private addresses
// allowed (its default in tests): pages, webhooks and model base_urls on the metadata address are refused.
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startFilteringProxy } from '../../../activities/fetching/browser/filtering-proxy.js';
import { CategorizedError } from '../../../shared/errors.js';
import {
  checkCallerHost,
  isAddressAllowed,
  type LookupFn,
  POLICY_REFUSAL,
  resolveAndCheck,
} from '../../../shared/net/address-policy.js';
import { closeGuardedAgents, guardedFetch } from '../../../shared/net/guarded-fetch.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

const LOCAL = { allowPrivate: true };
const METADATA_LITERALS = [
  '169.254.169.254',
  '169.254.170.2', // ECS task metadata
  '169.254.0.1',
  'fd00:ec2::254',
  'fe80::1',
  'fe80::a9fe:a9fe',
  '::ffff:169.254.169.254',
  '::ffff:a9fe:a9fe',
  '100.100.100.200',
];

const lookupOf =
  (table: Record<string, string>): LookupFn =>
  async (hostname) => {
    const address = table[hostname];
    if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return [{ address, family: address.includes(':') ? 6 : 4 } satisfies LookupAddress];
  };

const failingLookup: LookupFn = async (hostname) => {
  throw new Error(`lookup must not be called (asked for ${hostname})`);
};

/** An ssrf_blocked refusal naming the policy and none of the given addresses. */
const policyRefusal =
  (...hidden: string[]) =>
  (err: unknown) => {
    assert.ok(err instanceof CategorizedError, `expected a CategorizedError, got ${String(err)}`);
    assert.equal(err.category, 'ssrf_blocked', err.message);
    assert.ok(err.message.includes(POLICY_REFUSAL), err.message);
    const shown = `${err.message} ${JSON.stringify(err.details)}`;
    for (const address of hidden) assert.ok(!shown.includes(address), `${address} echoed in: ${shown}`);
    return true;
  };

describe('the address policy with private addresses allowed', () => {
  test('link-local and metadata addresses are never allowed; loopback and private ones are', () => {
    for (const ip of METADATA_LITERALS) assert.equal(isAddressAllowed(ip, LOCAL), false, ip);
    for (const ip of ['127.0.0.1', '10.0.0.1', '192.168.1.1', '::1', 'fd12:3456::1', '8.8.8.8']) {
      assert.equal(isAddressAllowed(ip, LOCAL), true, ip);
    }
    // The test hook for public stand-ins does not reopen them either.
    assert.equal(isAddressAllowed('169.254.169.254', { allowPrivate: false, isAllowed: () => true }), false);
  });

  test('metadata literals and names are refused without a lookup', async () => {
    for (const host of [
      ...METADATA_LITERALS.map((ip) => (ip.includes(':') ? `[${ip}]` : ip)),
      '2852039166',
    ]) {
      await assert.rejects(resolveAndCheck(host, LOCAL, failingLookup), policyRefusal(), host);
    }
    for (const host of [
      'metadata.google.internal',
      'METADATA.google.internal.',
      'metadata',
      'metadata.goog',
    ]) {
      await assert.rejects(resolveAndCheck(host, LOCAL, failingLookup), policyRefusal(), host);
    }
  });

  test('a name resolving to a link-local address is refused, and the message does not name the address', async () => {
    const lookup = lookupOf({ 'imds.test': '169.254.169.254', 'v6.test': 'fd00:ec2::254' });
    await assert.rejects(resolveAndCheck('imds.test', LOCAL, lookup), policyRefusal('169.254.169.254'));
    await assert.rejects(resolveAndCheck('v6.test', LOCAL, lookup), policyRefusal('fd00:ec2::254'));
    // Without allowPrivate, a private answer is refused the same way, without naming it.
    const internal = lookupOf({ 'db.internal.test': '10.20.30.40' });
    await assert.rejects(
      resolveAndCheck('db.internal.test', { allowPrivate: false }, internal),
      policyRefusal('10.20.30.40'),
    );
  });

  test('the request-time check of a caller host refuses metadata literals and names, not loopback', async () => {
    for (const host of ['169.254.169.254', '[fd00:ec2::254]', 'metadata.google.internal']) {
      await assert.rejects(checkCallerHost(host, LOCAL), policyRefusal(), host);
    }
    await checkCallerHost('127.0.0.1', LOCAL);
    await checkCallerHost('unresolvable.test', LOCAL); // names are checked where the connection is made
  });
});

describe('connect-time refusals', () => {
  let site: FixtureSite;
  before(async () => {
    site = await startFixtureSite();
    site.route('/to-metadata', (_req, res) =>
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
    );
    site.route('/to-metadata-name', (_req, res) =>
      res.writeHead(302, { location: 'http://metadata.google.internal/computeMetadata/v1/' }).end(),
    );
    site.route('/to-v6', (_req, res) => res.writeHead(302, { location: 'http://[fd00:ec2::254]/' }).end());
  });
  after(async () => {
    await closeGuardedAgents();
    await site.close();
  });

  test('guardedFetch refuses the metadata address, also as a redirect from a loopback page', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/']) {
      await assert.rejects(guardedFetch({ url, policy: LOCAL, timeoutMs: 3000 }), policyRefusal(), url);
    }
    for (const path of ['/to-metadata', '/to-metadata-name', '/to-v6']) {
      await assert.rejects(
        guardedFetch({ url: `${site.url}${path}`, policy: LOCAL, timeoutMs: 3000 }),
        policyRefusal(),
        path,
      );
    }
    assert.deepEqual(site.hits, ['/to-metadata', '/to-metadata-name', '/to-v6']);
  });

  test('guardedFetch refuses a name resolving to a link-local address without echoing it', async () => {
    const lookup = lookupOf({ 'imds.test': '169.254.169.254' });
    await assert.rejects(
      guardedFetch({ url: 'http://imds.test/', policy: LOCAL, lookup, timeoutMs: 3000 }),
      policyRefusal('169.254.169.254'),
    );
  });

  test("the browser's filtering proxy refuses them too, naming no address", async () => {
    const proxy = await startFilteringProxy({
      policy: LOCAL,
      lookup: lookupOf({ 'imds.test': '169.254.169.254' }),
    });
    try {
      for (const target of [
        'http://169.254.169.254/latest/meta-data/',
        'http://imds.test/',
        'http://metadata/',
      ]) {
        const res = await fetchViaProxy(proxy.url, target);
        assert.equal(res.status, 403, target);
        assert.ok(res.body.includes(POLICY_REFUSAL), res.body);
        assert.ok(!res.body.includes('169.254.169.254') || target.includes('169.254'), res.body);
        assert.equal(proxy.refusalFor(target)?.category, 'ssrf_blocked', target);
      }
    } finally {
      await proxy.close();
    }
  });
});

async function fetchViaProxy(proxyUrl: string, target: string): Promise<{ status: number; body: string }> {
  const proxy = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: proxy.hostname,
        port: Number(proxy.port),
        method: 'GET',
        path: target,
        headers: { host: new URL(target).host },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the service, with ALLOW_PRIVATE_ADDRESSES=true', () => {
  let svc: TestService;
  let site: FixtureSite;
  before(async () => {
    // Short fetch limits: before the fix, the metadata address was tried until the fetch timed out.
    svc = await startTestService({ env: { FETCH_TIMEOUT_MS: '3000' } });
    assert.equal(svc.config.ALLOW_PRIVATE_ADDRESSES, true);
    site = await startFixtureSite();
    site.route(
      '/page',
      html('Page', '<main><h1>A page</h1><p>Some words about a kettle for sale.</p></main>'),
    );
    site.route('/to-metadata', (_req, res) =>
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
    );
  });
  after(async () => {
    await site?.close();
    await svc?.close();
  });

  const extract = (body: Record<string, unknown>) =>
    svc.app.inject({
      method: 'POST',
      url: '/api/v1/extract',
      headers: svc.auth(),
      payload: { schema: { title: 'string' }, fetch_mode: 'static', ...body },
    });

  test('extract of the metadata address (IPv4, IPv6, via a redirect) is ssrf_blocked, 422', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/',
      `${site.url}/to-metadata`,
    ]) {
      const res = await extract({ url });
      assert.equal(res.statusCode, 422, `${url}: ${res.body}`);
      const problem = res.json();
      assert.equal(problem.error_category, 'ssrf_blocked', url);
      assert.match(res.body, /address policy/, url);
      assert.ok(problem.job_id, 'the job ran and failed');
    }
  });

  test('a webhook_url on the metadata address is refused at request time, and no job starts', async () => {
    for (const payload of [
      { webhook_url: 'http://169.254.169.254/hook' },
      { webhook: { url: 'http://metadata.google.internal/hook' } },
    ]) {
      const res = await extract({ url: `${site.url}/page`, ...payload });
      assert.equal(res.statusCode, 422, res.body);
      assert.match(res.json().errors[0].location, /^body\.webhook/);
      assert.equal(res.json().job_id, undefined);
    }
  });

  test('a model base_url on the metadata address is refused, and the key goes nowhere', async () => {
    const before = svc.llm.requests.length;
    const res = await extract({
      url: `${site.url}/page`,
      llm_config: {
        provider: 'openai',
        model: 'gpt-4o-mini',
        api_key: 'sk-tenant-secret',
        base_url: 'http://169.254.169.254/v1',
      },
    });
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().errors[0].location, 'body.llm_config.base_url');
    assert.ok(!res.body.includes('sk-tenant-secret'));
    assert.equal(svc.llm.requests.length, before);
  });
});
