// Worker caches fed by tenants and pages stay bounded by bytes: the robots.txt cache after many large robots
// files, and the compiled-validator cache after many distinct schemas (including what Ajv itself keeps). The
// robots heap is measured after GCs (a generous bound; unbounded it is several times over); evicted validators
// must be collectable.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  canonicalJson,
  VALIDATOR_CACHE_MAX_BYTES,
  validatorCacheStats,
  validatorFor,
} from '../../activities/extraction/schema-validators.js';
import { ROBOTS_CACHE_MAX_BYTES, robotsAllow, robotsCacheStats } from '../../activities/fetching/robots.js';
import { closeGuardedAgents } from '../../shared/net/guarded-fetch.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MiB = 1024 * 1024;

/**
 * The heap still in use after enough ordinary major GCs for V8 to age out what it caches on its own (the
 * bytecode of `new Function` code, which Ajv generates); forced gc() calls alone do not age it.
 */
async function retainedHeap(): Promise<number> {
  let churn: unknown[] = [];
  for (let round = 0; round < 40; round++) {
    churn = [];
    for (let j = 0; j < 400_000; j++) churn.push({ j, s: `x${j}` });
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  churn = [];
  gc();
  return process.memoryUsage().heapUsed + churn.length;
}

describe('the robots.txt cache', () => {
  const SITES = 48;
  const sites: FixtureSite[] = [];
  before(async () => {
    for (let i = 0; i < SITES; i++) {
      const site = await startFixtureSite();
      // ~450 KB of short rules: the kind of file that costs robots-parser the most heap per byte.
      const rules = Array.from({ length: 32_000 }, (_, n) => `Allow:/${i}-${n}`).join('\n');
      const text = `User-agent: *\nDisallow: /private\n${rules}\n`;
      site.route('/robots.txt', (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/plain' }).end(text),
      );
      sites.push(site);
    }
  });
  after(async () => {
    await Promise.all(sites.map((s) => s.close()));
    await closeGuardedAgents();
  });

  test('stays under its byte bound after many large robots files, and the heap with it', async () => {
    const opts = { allowPrivate: true, timeoutMs: 5000 };
    const heapBefore = await retainedHeap();
    for (const site of sites) {
      assert.equal(await robotsAllow(`${site.url}/private/x`, opts), false);
      assert.equal(await robotsAllow(`${site.url}/page`, opts), true);
    }
    const stats = robotsCacheStats();
    const grown = (await retainedHeap()) - heapBefore;
    assert.ok(stats.bytes <= ROBOTS_CACHE_MAX_BYTES, JSON.stringify(stats));
    assert.ok(stats.origins < SITES, `older origins were evicted: ${JSON.stringify(stats)}`);
    // Unbounded, 48 parsed files hold ~120 MB; bounded, at most the cache's budget.
    assert.ok(grown < ROBOTS_CACHE_MAX_BYTES + 16 * MiB, `heap grew ${(grown / MiB).toFixed(1)} MiB`);
  });
});

describe('the compiled-validator cache', () => {
  /** A distinct schema of `fields` fields (~150 bytes of JSON each), as toJsonSchema makes them. */
  function schemaOf(i: number, fields = 100): Record<string, unknown> {
    const properties: Record<string, unknown> = {};
    for (let j = 0; j < fields; j++) {
      properties[`field_${i}_${j}_name`] =
        j % 3 === 0
          ? { type: ['array', 'null'], items: { type: 'object', properties: { a: { type: 'number' } } } }
          : { type: ['string', 'null'], description: 'what the page says about it' };
    }
    return { type: 'object', properties, required: [], additionalProperties: false };
  }

  test('one schema in another key order is one entry; validators work', () => {
    const a = { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] };
    const b = { required: ['x'], properties: { x: { type: 'number' } }, type: 'object' };
    assert.equal(canonicalJson(a), canonicalJson(b));
    assert.equal(validatorFor(a), validatorFor(b));
    assert.equal(validatorFor(a)({ x: 1 }), true);
    assert.equal(validatorFor(a)({ x: 'one' }), false);
  });

  test('compiling many distinct schemas keeps the cache bounded, and evicted validators are freed', async () => {
    const N = 200;
    const compiled: WeakRef<object>[] = [];
    for (let i = 0; i < N; i++) {
      const validate = validatorFor(schemaOf(i));
      assert.equal(validate({ [`field_${i}_1_name`]: 'ok' }), true);
      assert.equal(validate({ unknown: 1 }), false);
      compiled.push(new WeakRef(validate));
    }
    const stats = validatorCacheStats();
    assert.ok(stats.bytes <= VALIDATOR_CACHE_MAX_BYTES, JSON.stringify(stats));
    assert.ok(stats.validators < N, `older validators were evicted: ${JSON.stringify(stats)}`);
    // Nothing else may hold an evicted validator: a shared Ajv keeps every schema and compiled function it
    // ever made in its code-generation scope (removeSchema does not clear it), so none would be freed.
    await new Promise((resolve) => setImmediate(resolve)); // WeakRef targets live until the job ends
    gc();
    const alive = compiled.filter((ref) => ref.deref() !== undefined).length;
    assert.ok(
      alive <= stats.validators,
      `${alive} of ${N} validators still alive, ${stats.validators} cached`,
    );
  });
});
