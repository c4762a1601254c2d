// Pure address and URL checks; lookups are injected, so nothing here touches the network.
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { test } from 'node:test';
import { CategorizedError } from '../../shared/errors.js';
import {
  checkUrl,
  hostIsIpLiteral,
  isPublicAddress,
  type LookupFn,
  literalAddress,
  resolveAndCheck,
} from '../../shared/net/address-policy.js';

const isCategory = (category: string) => (err: unknown) =>
  err instanceof CategorizedError && err.category === category;

const staticLookup =
  (table: Record<string, string[]>): LookupFn =>
  async (hostname) => {
    const addresses = table[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

const failingLookup: LookupFn = async (hostname) => {
  throw new Error(`lookup must not be called (asked for ${hostname})`);
};

test('isPublicAddress: only globally routable unicast passes', () => {
  const table: [string, boolean][] = [
    ['127.0.0.1', false],
    ['::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['172.32.0.1', true],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['240.0.0.1', false],
    ['198.18.0.1', false],
    ['::', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['fe80::1', false],
    ['fe80::1%eth0', false],
    ['ff02::1', false],
    ['2001:db8::1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['::7f00:1', false], // deprecated IPv4-compatible ::127.0.0.1
    ['64:ff9b::a00:1', false], // NAT64 of 10.0.0.1
    ['64:ff9b::808:808', true], // NAT64 of 8.8.8.8
    ['64:ff9b:1::808:808', false], // site-local NAT64 prefix
    ['2002:a00:1::1', false], // 6to4 of 10.0.0.1
    ['2002:808:808::1', true], // 6to4 of 8.8.8.8
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false], // Teredo: embedded client address is obfuscated
    ['8.8.8.8', true],
    ['1.1.1.1', true],
    ['2606:4700::1111', true],
    ['2a00:1450:4001:80b::200e', true],
  ];
  for (const [ip, expected] of table) assert.equal(isPublicAddress(ip), expected, ip);
});

test('isPublicAddress: anything that is not a canonical address is refused', () => {
  for (const junk of [
    '',
    'localhost',
    'example.com',
    '127.1',
    '2130706433',
    '0x7f.0.0.1',
    '1.2.3.4.5',
    '[::1]',
  ]) {
    assert.equal(isPublicAddress(junk), false, junk);
  }
});

test('checkUrl accepts http(s) and refuses other schemes, credentials and garbage', () => {
  assert.equal(checkUrl('https://example.com/a?b=1').hostname, 'example.com');
  assert.equal(checkUrl('http://example.com:8080/').port, '8080');
  for (const bad of [
    'ftp://example.com/',
    'file:///etc/passwd',
    'gopher://example.com/',
    'javascript:alert(1)',
    'data:text/html,hi',
    'not a url',
    '//example.com/',
    'http://user:pass@example.com/',
    'http://user@example.com/',
    'http://:pass@example.com/',
  ]) {
    assert.throws(() => checkUrl(bad), isCategory('invalid_input'), bad);
  }
});

test('the URL parser normalises odd IPv4 spellings to a dotted quad the checks understand', () => {
  const forms: [string, string][] = [
    ['http://2130706433/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0x7f.0.0.1/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://127.0.0.1./', '127.0.0.1'],
    ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
  ];
  for (const [raw, hostname] of forms) {
    const url = checkUrl(raw);
    assert.equal(url.hostname, hostname, raw);
    assert.ok(hostIsIpLiteral(url.hostname), raw);
    assert.equal(isPublicAddress(literalAddress(url.hostname)!), false, raw);
  }
});

test('hostIsIpLiteral and literalAddress', () => {
  assert.equal(literalAddress('[::1]'), '::1');
  assert.equal(literalAddress('::1'), '::1');
  assert.equal(literalAddress('8.8.8.8'), '8.8.8.8');
  // Spellings that did not go through new URL() still count as addresses, read as inet_aton reads them.
  assert.equal(literalAddress('127.1'), '127.0.0.1');
  assert.equal(literalAddress('0x7f.1'), '127.0.0.1');
  assert.equal(literalAddress('2130706433'), '127.0.0.1');
  assert.equal(literalAddress('example.com'), null);
  assert.equal(hostIsIpLiteral('localhost'), false);
  assert.equal(hostIsIpLiteral('[2606:4700::1111]'), true);
});

test('resolveAndCheck refuses a name when any of its addresses is private', async () => {
  const lookup = staticLookup({
    'public.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'mixed.test': ['93.184.216.34', '10.0.0.1'],
    'internal.test': ['10.0.0.1'],
    'mapped.test': ['::ffff:192.168.0.1'],
  });
  const policy = { allowPrivate: false };
  const ok = await resolveAndCheck('public.test', policy, lookup);
  assert.deepEqual(
    ok.map((a) => a.address),
    ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  );
  for (const host of ['mixed.test', 'internal.test', 'mapped.test']) {
    await assert.rejects(resolveAndCheck(host, policy, lookup), isCategory('ssrf_blocked'), host);
  }
  // The message names the policy, never the address the name resolved to (no DNS oracle).
  await assert.rejects(resolveAndCheck('internal.test', policy, lookup), {
    message:
      'refused internal.test: the address policy refuses private, loopback, link-local and metadata addresses',
    details: { host: 'internal.test', reason: 'address_policy' },
  });
});

test('resolveAndCheck lets private addresses through only with allowPrivate', async () => {
  const lookup = staticLookup({ 'internal.test': ['10.0.0.1'] });
  const addresses = await resolveAndCheck('internal.test', { allowPrivate: true }, lookup);
  assert.deepEqual(addresses, [{ address: '10.0.0.1', family: 4 }]);
});

test('resolveAndCheck takes IP literals as they are, without a lookup', async () => {
  const policy = { allowPrivate: false };
  assert.deepEqual(await resolveAndCheck('8.8.8.8', policy, failingLookup), [
    { address: '8.8.8.8', family: 4 },
  ]);
  assert.deepEqual(await resolveAndCheck('[2606:4700::1111]', policy, failingLookup), [
    { address: '2606:4700::1111', family: 6 },
  ]);
  for (const literal of ['127.0.0.1', '[::1]', '169.254.169.254', '127.1', '[::ffff:7f00:1]']) {
    await assert.rejects(
      resolveAndCheck(literal, policy, failingLookup),
      isCategory('ssrf_blocked'),
      literal,
    );
  }
});

test('resolveAndCheck lets lookup failures through for the caller to classify', async () => {
  await assert.rejects(resolveAndCheck('nowhere.test', { allowPrivate: false }, staticLookup({})), {
    code: 'ENOTFOUND',
  });
  await assert.rejects(
    resolveAndCheck('empty.test', { allowPrivate: false }, staticLookup({ 'empty.test': [] })),
    {
      code: 'ENOTFOUND',
    },
  );
});

test('an isAllowed hook replaces the public-address test', async () => {
  const policy = { allowPrivate: false, isAllowed: (ip: string) => ip === '127.0.0.1' };
  const lookup = staticLookup({ 'stand-in.test': ['127.0.0.1'], 'other.test': ['8.8.8.8'] });
  assert.equal((await resolveAndCheck('stand-in.test', policy, lookup))[0]?.address, '127.0.0.1');
  await assert.rejects(resolveAndCheck('other.test', policy, lookup), isCategory('ssrf_blocked'));
});
