// A tenant's follow_pattern cannot freeze the worker: it runs on RE2 (linear time), so a pattern that
// backtracks for hours in RegExp finishes at once while another tenant's extract is served by the same
// worker; and a pattern RE2 cannot run (backreference, lookaround) is refused at request time with a 422
// naming the field, on /crawl and on stored sites. The worker runs in its own process, as in production: a
// frozen worker then fails this test by its time limits instead of freezing the test runner with it.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { COLLECTIONS } from '../../../shared/store/mongo.js';
import { waitForJobEnd } from '../../support/crawl-jobs.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { spawnWorkerProcess, startTestService, type TestService } from '../../support/service.js';

/** Backtracks 2^n times in RegExp on `/aaa…a!`: hours for 40 a's. */
const EVIL = '^https?://[^/]+/(a+)+$';
const EVIL_LINKS = [40, 45, 50].map((n) => `/${'a'.repeat(n)}!`);

let svc: TestService;
let site: FixtureSite;
let worker: ChildProcess | null = null;

before(async () => {
  // An extract that cannot finish in time answers 202 after this, instead of waiting 120 s.
  svc = await startTestService({ worker: false, env: { EXTRACT_WAIT_SECONDS: '20', HTML_WORKERS: '2' } }); // production's threads
  site = await startFixtureSite();
  site.route(
    '/',
    html('Trap', `<h1>Links</h1>${[...EVIL_LINKS, '/aaaa'].map((h) => `<a href="${h}">x</a>`).join(' ')}`),
  );
  site.route('/aaaa', html('Followed', '<h1>Followed</h1><p>A page the pattern picks.</p>'));
  site.route('/fast', html('Fast', '<h1>Fast page</h1><p>Ready.</p>'));
});
after(async () => {
  // A worker frozen in a regex (before the fix) handles no SIGTERM.
  worker?.kill('SIGKILL');
  await site?.close();
  await svc?.close();
});

const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object, key?: string) =>
  svc.app.inject({ method, url: `/api/v1${url}`, headers: svc.auth(key), payload });

describe('follow_pattern runs in linear time', () => {
  test('a catastrophic pattern over a page of a-runs: the crawl ends, another tenant is served meanwhile', {
    timeout: 90_000,
  }, async () => {
    worker = spawnWorkerProcess(svc.config, { OTEL_SDK_DISABLED: 'true' });
    const crawl = await call('POST', '/crawl', {
      url: `${site.url}/`,
      schema: { title: 'string' },
      options: { follow_pattern: EVIL, max_depth: 1, respect_robots: false },
    });
    assert.equal(crawl.statusCode, 202, crawl.body);
    // The trap page has been fetched: its links are being matched now.
    for (let i = 0; i < 300 && !site.hits.includes('/'); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(site.hits.includes('/'), 'the crawl fetched its seed page');

    const other = await svc.newTenant('other');
    const started = Date.now();
    const extract = await call(
      'POST',
      '/extract',
      { url: `${site.url}/fast`, schema: { title: 'string' } },
      other.apiKey,
    );
    const extractMs = Date.now() - started;
    // Before: the worker was stuck in RegExp; the extract got 202 after 20 s and never ran.
    assert.equal(extract.statusCode, 200, `after ${extractMs} ms: ${extract.body}`);
    assert.ok(extractMs < 20_000, `the other tenant's extract took ${extractMs} ms`);

    const job = await waitForJobEnd(svc, crawl.json().job_id, 30_000);
    assert.equal(job.status, 'completed');
    const map = (await call('GET', `/jobs/${crawl.json().job_id}/crawl-map`)).json();
    const urls: string[] = map.entries.map((e: { url: string }) => e.url);
    // RegExp.test's semantics kept: /aaaa matches, the a-runs ending in "!" do not.
    assert.equal(map.total, 2, urls.join(' '));
    assert.ok(urls.includes(`${site.url}/aaaa`), urls.join(' '));
    assert.ok(!site.hits.some((h) => h.includes('!')), site.hits.join(' '));
  });
});

describe('a pattern RE2 cannot run is refused at request time', () => {
  const refused = ['(a)\\1', '/p/(?=\\d)', '(?<!x)/p'];

  const assertRefused = (res: { statusCode: number; body: string; json(): any }, location: string) => {
    assert.equal(res.statusCode, 422, res.body);
    assert.match(res.json().type ?? '', /validation-error/);
    const error = res.json().errors.find((e: { location: string }) => e.location === location);
    assert.ok(error, `${location} named in ${res.body}`);
    assert.match(error.message, /not an RE2 regular expression/);
  };

  test('POST /crawl: 422 at body.options.follow_pattern', async () => {
    for (const follow_pattern of refused) {
      const res = await call('POST', '/crawl', {
        url: `${site.url}/`,
        schema: { title: 'string' },
        options: { follow_pattern },
      });
      assertRefused(res, 'body.options.follow_pattern');
    }
  });

  test('sites: 422 at body.crawl_options.follow_pattern on create and update, body.options on crawl', async () => {
    for (const follow_pattern of refused) {
      const created = await call('POST', '/sites', {
        url: `${site.url}/`,
        crawl_options: { follow_pattern },
      });
      assertRefused(created, 'body.crawl_options.follow_pattern');
    }
    const ok = await call('POST', '/sites', {
      url: `${site.url}/`,
      crawl_options: { follow_pattern: '/p/\\d+' },
    });
    assert.equal(ok.statusCode, 201, ok.body);
    const id = ok.json().id as string;
    const put = await call('PUT', `/sites/${id}`, { crawl_options: { follow_pattern: '(a)\\1' } });
    assertRefused(put, 'body.crawl_options.follow_pattern');
    const crawl = await call('POST', `/sites/${id}/crawl`, {
      schema: { title: 'string' },
      options: { follow_pattern: '/p/(?=\\d)' },
    });
    assertRefused(crawl, 'body.options.follow_pattern');

    // A pattern saved before patterns ran on RE2 still reads, and its crawl is refused naming it.
    await svc.mongo.db
      .collection<{ _id: string }>(COLLECTIONS.sites)
      .updateOne({ _id: `${svc.tenantId}:${id}` }, { $set: { 'crawl_options.follow_pattern': '(a)\\1' } });
    const read = await call('GET', `/sites/${id}`);
    assert.equal(read.statusCode, 200, read.body);
    assert.equal(read.json().crawl_options.follow_pattern, '(a)\\1');
    const legacy = await call('POST', `/sites/${id}/crawl`, { schema: { title: 'string' } });
    assertRefused(legacy, 'site.crawl_options.follow_pattern');
  });
});
