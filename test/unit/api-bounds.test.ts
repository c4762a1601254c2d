// The pure parts of the API's bounds: the JSON depth scan and the per-address count of unknown keys.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clientAddressKey, MemoryAuthFailures } from '../../api/auth-failures.js';
import { jsonNestedDeeperThan } from '../../shared/json-depth.js';

describe('jsonNestedDeeperThan', () => {
  test('counts arrays and objects, not brackets inside strings (escaped quotes included)', () => {
    assert.equal(jsonNestedDeeperThan('[[[1]]]', 3), false);
    assert.equal(jsonNestedDeeperThan('[[[[1]]]]', 3), true);
    assert.equal(jsonNestedDeeperThan('{"a":{"b":[{}]}}', 4), false);
    assert.equal(jsonNestedDeeperThan('{"a":{"b":[{}]}}', 3), true);
    assert.equal(jsonNestedDeeperThan(JSON.stringify({ s: '[[[[[[', t: 'a\\"[[[[' }), 1), false);
    assert.equal(jsonNestedDeeperThan('[1],[2],[3],[4]', 1), false, 'siblings do not add up');
    assert.equal(jsonNestedDeeperThan(']]]][[', 1), true, 'stray closers do not buy depth');
  });
});

describe('MemoryAuthFailures', () => {
  test('blocks at the limit until the window ends', async () => {
    const failures = new MemoryAuthFailures(3, 10_000);
    for (let i = 0; i < 3; i++) {
      assert.equal(await failures.blockedFor('a', 1000), 0);
      await failures.recordFailure('a', 1000 + i);
    }
    assert.equal(await failures.blockedFor('a', 2000), 9);
    assert.equal(await failures.blockedFor('b', 2000), 0);
    assert.equal(await failures.blockedFor('a', 11_000), 0);
  });

  test('holds at most maxAddresses windows, dropping the oldest', async () => {
    const failures = new MemoryAuthFailures(1, 60_000, 100);
    for (let i = 0; i < 1000; i++) await failures.recordFailure(`addr-${i}`, 1000);
    assert.equal(await failures.blockedFor('addr-999', 1000), 60);
    assert.equal(await failures.blockedFor('addr-0', 1000), 0, 'the oldest was dropped');
    assert.ok((failures as unknown as { windows: Map<string, unknown> }).windows.size <= 100);
  });

  test('an IPv6 client is one /64; an IPv4-mapped address is its IPv4 address', () => {
    assert.equal(clientAddressKey('2001:db8:1:2::1'), clientAddressKey('2001:db8:1:2:ffff::9'));
    assert.notEqual(clientAddressKey('2001:db8:1:2::1'), clientAddressKey('2001:db8:1:3::1'));
    assert.equal(clientAddressKey('::ffff:192.0.2.1'), '192.0.2.1');
  });
});
