// Retry and re-extract are pure functions of the earlier job's stored spec; a stored spec (also one stored
// before specs had a kind) reads back with the JobSpec schema.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { workflowStart } from '../../shared/job-create.js';
import { reextractSpec, retrySpec } from '../../shared/rerun-spec.js';
import {
  type AnalyzeSpec,
  type CrawlSpec,
  type ExtractSpec,
  readJobSpec,
  UnreadableSpecError,
} from '../../shared/schemas/job-spec.js';

const schema = {
  input_format: 'fields' as const,
  name: 'extraction',
  fields: [{ name: 'name', type: 'string' as const, required: false }],
};
const extract: ExtractSpec = {
  kind: 'extract',
  url: 'https://a.example/',
  fetchMode: 'auto',
  cleanerChain: [{ name: 'markdown' }],
  schema,
  captureDebug: false,
  llm: { provider: 'openai', model: 'gpt', hasKey: true },
  maxAgeMs: 60_000,
};
const crawl: CrawlSpec = {
  ...extract,
  kind: 'crawl',
  url: 'https://shop.example/',
  options: {
    max_pages: 500,
    max_depth: 3,
    follow_selector: 'a.item',
    follow_pattern: '/p/',
    next_selector: 'a.next',
    same_domain_only: true,
    delay_ms: 0,
    concurrency: 3,
    respect_robots: true,
  },
  webhooks: { destinations: [{ events: ['job.completed'] }], retryDelaysMs: [1000] },
};
const analyze: AnalyzeSpec = {
  kind: 'analyze',
  url: 'https://a.example/',
  depth: 1,
  fetchMode: 'static',
  captureDebug: false,
};
const pages = [
  { id: 'p1', url: 'https://shop.example/p/1', depth: 1, parent_url: 'https://shop.example/' },
  { id: 'p2', url: 'https://shop.example/p/2', depth: 2, parent_url: 'https://shop.example/p/1' },
];
const original = structuredClone({ extract, crawl, analyze });

describe('retrySpec', () => {
  test('a crawl: the failed pages as seeds, no link followed, its limit their number, fetched again', () => {
    const spec = retrySpec(crawl, { failedPages: pages, refetch: true, originalJobId: 'job_old' });
    assert.equal(spec.kind, 'crawl');
    if (spec.kind !== 'crawl') return;
    assert.deepEqual(spec.seeds, [
      { url: 'https://shop.example/p/1', depth: 1, parentUrl: 'https://shop.example/' },
      { url: 'https://shop.example/p/2', depth: 2, parentUrl: 'https://shop.example/p/1' },
    ]);
    assert.deepEqual(spec.options, {
      max_pages: 2,
      max_depth: 3,
      same_domain_only: true,
      delay_ms: 0,
      concurrency: 3,
      respect_robots: true,
    });
    // The rest is the original's: schema, model settings (the key is copied apart), webhooks, max_age.
    assert.deepEqual(spec.llm, crawl.llm);
    assert.deepEqual(spec.webhooks, crawl.webhooks);
    assert.equal(spec.maxAgeMs, crawl.maxAgeMs);
    assert.deepEqual({ extract, crawl, analyze }, original, 'the stored spec is not changed');
  });

  test('a crawl without refetch: each page from what the original stored of it, fetched when gone', () => {
    const spec = retrySpec(crawl, { failedPages: pages, refetch: false, originalJobId: 'job_old' });
    assert.equal(spec.kind, 'crawl');
    if (spec.kind !== 'crawl') return;
    assert.deepEqual(
      spec.seeds?.map((s) => s.stored),
      [
        { jobId: 'job_old', pageId: 'p1', missing: 'fetch' },
        { jobId: 'job_old', pageId: 'p2', missing: 'fetch' },
      ],
    );
  });

  test("a crawl that was a re-extract: the retry's pages are its own, not the re-extract's sources", () => {
    const reextracted: CrawlSpec = {
      ...crawl,
      reextractOf: 'job_first',
      seeds: [{ url: 'https://x/', depth: 0, parentUrl: null }],
    };
    const spec = retrySpec(reextracted, { failedPages: pages, refetch: true, originalJobId: 'job_old' });
    assert.equal('reextractOf' in spec, false);
    assert.equal(spec.kind === 'crawl' && spec.seeds?.length, 2);
  });

  test('an extract runs again as it was asked; without refetch, from its stored page', () => {
    const failed = pages.slice(0, 1);
    assert.deepEqual(
      retrySpec(extract, { failedPages: failed, refetch: true, originalJobId: 'job_old' }),
      extract,
    );
    assert.deepEqual(retrySpec(extract, { failedPages: failed, refetch: false, originalJobId: 'job_old' }), {
      ...extract,
      stored: { jobId: 'job_old', pageId: 'p1', missing: 'fetch' },
    });
    const reextracted: ExtractSpec = {
      ...extract,
      reextractOf: 'job_first',
      stored: { jobId: 'job_first', pageId: 'p0', missing: 'fail' },
    };
    assert.deepEqual(
      retrySpec(reextracted, { failedPages: failed, refetch: true, originalJobId: 'job_old' }),
      extract,
    );
  });

  test('an analyze job runs again as it was asked, with or without refetch', () => {
    for (const refetch of [true, false]) {
      assert.deepEqual(
        retrySpec(analyze, { failedPages: pages.slice(0, 1), refetch, originalJobId: 'job_old' }),
        analyze,
      );
    }
  });
});

describe('reextractSpec', () => {
  const changes = { schema: { ...schema, name: 'other' }, cleanerChain: [{ name: 'text' }] };

  test('an extract: its page from the store (failing when gone), the new schema, no webhooks or max_age', () => {
    const spec = reextractSpec(
      { ...extract, webhooks: crawl.webhooks },
      { pages: pages.slice(0, 1), originalJobId: 'job_old', changes },
    );
    const { webhooks: _h, maxAgeMs: _a, ...kept } = extract;
    assert.deepEqual(spec, {
      ...kept,
      ...changes,
      reextractOf: 'job_old',
      stored: { jobId: 'job_old', pageId: 'p1', missing: 'fail' },
    });
  });

  test('a crawl: every page from the store, no link followed; what the caller left out stays', () => {
    const spec = reextractSpec(crawl, {
      pages,
      originalJobId: 'job_old',
      changes: { ...changes, captureDebug: true },
    });
    assert.equal(spec.kind, 'crawl');
    if (spec.kind !== 'crawl') return;
    assert.equal(spec.reextractOf, 'job_old');
    assert.equal(spec.captureDebug, true);
    assert.deepEqual(spec.llm, crawl.llm);
    assert.equal(spec.webhooks, undefined);
    assert.equal(spec.maxAgeMs, undefined);
    assert.equal(spec.options.max_pages, 2);
    assert.deepEqual(
      spec.seeds?.map((s) => s.stored?.missing),
      ['fail', 'fail'],
    );
  });
});

describe('readJobSpec', () => {
  test('a record stored before specs had a kind takes its job type, and starts the same workflow input', () => {
    // As job.created stored an extract's request before: the workflow input without its ids.
    const { kind: _kind, ...old } = extract;
    const spec = readJobSpec(JSON.parse(JSON.stringify(old)), 'extract');
    assert.deepEqual(spec, extract);
    const start = workflowStart(spec, { jobId: 'job_new', tenantId: 't1' });
    assert.equal(start.workflowType, 'extractPageWorkflow');
    assert.equal(start.workflowId, 'extract-job_new');
    assert.deepEqual(start.input, { ...old, jobId: 'job_new', tenantId: 't1', firstSeq: 1 });
  });

  test('old crawl, analyze and map records read as their kind', () => {
    const { kind: _c, ...oldCrawl } = crawl;
    assert.deepEqual(readJobSpec({ ...oldCrawl, seeds: [] }, 'crawl'), { ...crawl, seeds: [] });
    const { kind: _a, ...oldAnalyze } = analyze;
    assert.deepEqual(readJobSpec(oldAnalyze, 'analyze'), analyze);
    const map = {
      url: 'https://a.example/',
      limit: 100,
      includeSubdomains: false,
      search: null,
      useSitemap: true,
      ignoreQuery: true,
      respectRobots: true,
    };
    assert.deepEqual(readJobSpec(map, 'map'), { kind: 'map', ...map });
  });

  test('a null the store wrote for an undefined field is an absent field; a null that is a value stays', () => {
    const { kind: _c, llm: _l, ...oldCrawl } = crawl;
    const stored = {
      ...oldCrawl,
      llm: null,
      options: { ...crawl.options, follow_selector: null, follow_pattern: null },
      seeds: [{ url: 'https://shop.example/', depth: 0, parentUrl: null }],
    };
    const spec = readJobSpec(stored, 'crawl');
    assert.equal(spec.kind === 'crawl' && 'llm' in spec, false);
    assert.equal(spec.kind === 'crawl' && 'follow_selector' in spec.options, false);
    assert.equal(spec.kind === 'crawl' && spec.seeds?.[0]?.parentUrl, null);
  });

  test('a record that is not a spec of its job kind is refused', () => {
    assert.throws(() => readJobSpec({ url: 'https://a.example/' }, 'extract'), UnreadableSpecError);
    assert.throws(() => readJobSpec({ ...analyze }, 'extract'), UnreadableSpecError);
  });
});
