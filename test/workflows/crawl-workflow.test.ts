// crawlWorkflow alone, with fake activities: a site of pages given as data, an event log in memory that keeps
// the first event written at each seq (as the store does), and frontier chunks in a Map. Only the Temporal dev
// server built by the project runs; no database, no fetching. What the crawl must do whatever its activities:
// every page once with gap-free seqs, a deferred page run again and recorded once, a failed page recorded in
// its own seq, a history that fills up continued as new with nothing lost, a cancellation that records the
// pages in flight as skipped.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { makeCrawlPages } from '../../activities/crawl/crawl-pages.js';
import type { CrawlPageInput, CrawlPageResult } from '../../activities/crawl/crawl-types.js';
import type { Activities } from '../../activities/index.js';
import type { JobEvent } from '../../shared/events.js';
import { normalizeSchema } from '../../shared/schema-input.js';
import type { CrawlRunOptions } from '../../shared/schemas/job-spec.js';
import { SEARCH_ATTRIBUTE_KEYS, WORKFLOW_TYPES } from '../../shared/temporal-names.js';
import type { CrawlWorkflowInput, CrawlWorkflowResult } from '../../workflows/crawl.js';

import { startWorkflowEnv, type WorkflowEnv } from '../support/workflow-env.js';

const BASE = 'https://site.test';

/** What a fake page does when its activity runs (`run`: how many times it ran before). */
type PageBehaviour = (input: CrawlPageInput, run: number) => Promise<CrawlPageResult>;

interface FakeJob {
  /** Path → the paths it links to. */
  links: Record<string, string[]>;
  behaviour?: Record<string, PageBehaviour>;
  events: Map<number, JobEvent>;
  runs: Map<string, number>;
}

const jobs = new Map<string, FakeJob>();
const chunks = new Map<string, unknown>();
let wf: WorkflowEnv;
let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;

function jobOf(jobId: string): FakeJob {
  const job = jobs.get(jobId);
  if (!job) throw new Error(`no fake job ${jobId}`);
  return job;
}

/** The store's rule: a seq is written once; a later write of it (a retry, a replay) changes nothing. */
function write(events: readonly JobEvent[]): void {
  for (const event of events) {
    const log = jobOf(event.job_id).events;
    if (!log.has(event.seq)) log.set(event.seq, event);
  }
}

async function crawlPage(input: CrawlPageInput): Promise<CrawlPageResult> {
  const job = jobOf(input.jobId);
  const path = new URL(input.url).pathname;
  const run = job.runs.get(path) ?? 0;
  job.runs.set(path, run + 1);
  const own = job.behaviour?.[path];
  const result: CrawlPageResult = own
    ? await own(input, run)
    : {
        outcome: 'completed',
        links: (job.links[path] ?? []).map((to) => ({ url: `${BASE}${to}`, kind: 'follow' as const })),
        inputTokens: 10,
        outputTokens: 2,
      };
  if (result.outcome === 'completed')
    write([
      {
        type: 'page.completed',
        job_id: input.jobId,
        tenant_id: input.tenantId,
        seq: input.eventSeq,
        event_id: input.eventId,
        at: new Date().toISOString(),
        data: { page_id: input.pageId, url: input.url, depth: input.depth, parent_url: input.parentUrl },
      } as unknown as JobEvent,
    ]);
  return result;
}

const fakeActivities: Partial<Activities> = {
  recordEvents: async (events: JobEvent[]) => write(events),
  crawlPage: crawlPage as Activities['crawlPage'],
  crawlPages: makeCrawlPages(crawlPage) as Activities['crawlPages'],
  storeFrontierChunk: async (input) => void chunks.set(`${input.jobId}:${input.chunk}`, input.pages),
  loadFrontierChunk: async (input) => {
    const pages = chunks.get(`${input.jobId}:${input.chunk}`);
    if (!pages) throw new Error(`chunk ${input.chunk} missing`);
    return pages as Awaited<ReturnType<Activities['loadFrontierChunk']>>;
  },
  dropFrontier: async (input) => {
    for (let chunk = 0; chunk < input.count; chunk++) chunks.delete(`${input.jobId}:${chunk}`);
  },
};

before(async () => {
  wf = await startWorkflowEnv('crawl-workflow-test');
  env = wf.env;
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: wf.taskQueue,
    workflowBundle: wf.workflowBundle,
    activities: fakeActivities,
  });
  running = worker.run();
});

after(async () => {
  worker?.shutdown();
  await running;
  await wf?.close();
});

const OPTIONS: CrawlRunOptions = {
  same_domain_only: true,
  max_pages: 50,
  max_depth: 3,
  delay_ms: 0,
  concurrency: 4,
  respect_robots: false,
};

/** A site of 1 + 3 + 9 pages: / links to /a../c, each of them to three pages of its own. */
function treeSite(): Record<string, string[]> {
  const links: Record<string, string[]> = { '/': ['/a', '/b', '/c'] };
  for (const top of ['/a', '/b', '/c']) links[top] = [1, 2, 3].map((n) => `${top}/${n}`);
  return links;
}

async function startCrawl(fake: Omit<FakeJob, 'events' | 'runs'>, options: Partial<CrawlRunOptions> = {}) {
  const jobId = `job_${randomUUID().replaceAll('-', '')}`;
  jobs.set(jobId, { ...fake, events: new Map(), runs: new Map() });
  const input: CrawlWorkflowInput = {
    jobId,
    tenantId: 'ten_fake',
    url: `${BASE}/`,
    fetchMode: 'static',
    cleanerChain: [{ name: 'markdown' }],
    schema: normalizeSchema({ title: 'string' }),
    captureDebug: false,
    options: { ...OPTIONS, ...options },
    firstSeq: 1,
  };
  const handle = await env.client.workflow.start(WORKFLOW_TYPES.crawl, {
    workflowId: `crawl-${jobId}`,
    taskQueue: wf.taskQueue,
    args: [input],
    typedSearchAttributes: new TypedSearchAttributes([
      { key: SEARCH_ATTRIBUTE_KEYS.status, value: 'pending' },
    ]),
  });
  return { jobId, handle, job: jobOf(jobId) };
}

/** The log from seq 1 (seq 0 is job.created, the API's), asserting no seq is missing. */
function logOf(job: FakeJob): JobEvent[] {
  const seqs = [...job.events.keys()].sort((a, b) => a - b);
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => i + 1),
    'the seqs are gap-free from 1',
  );
  return seqs.map((seq) => job.events.get(seq) as JobEvent);
}

const urlsOf = (log: JobEvent[], type: string) =>
  log
    .filter((e) => e.type === type)
    .map((e) => (e.data as { url: string }).url.replace(BASE, ''))
    .sort();

describe('crawlWorkflow with fake activities', () => {
  test('every page of the site once, in gap-free seqs, and the job completed last', async () => {
    const { handle, job } = await startCrawl({ links: treeSite() });
    const result: CrawlWorkflowResult = await handle.result();
    assert.equal(result.completed, 13);
    assert.equal(result.failed, 0);
    const log = logOf(job);
    const pages = urlsOf(log, 'page.completed');
    assert.equal(pages.length, 13);
    assert.equal(new Set(pages).size, 13, 'no page recorded twice');
    assert.ok(
      [...job.runs.values()].every((n) => n === 1),
      'no page ran twice',
    );
    assert.equal(log.at(0)?.type, 'job.started');
    assert.equal(log.at(-1)?.type, 'job.completed');
  });

  test('a deferred page runs again after a timer and is recorded once; a failed page in its own seq', async () => {
    const { handle, job } = await startCrawl({
      links: treeSite(),
      behaviour: {
        '/a/2': async (_input, run) =>
          run < 2
            ? { outcome: 'deferred', retryAfterMs: 50 }
            : { outcome: 'completed', links: [], inputTokens: 1, outputTokens: 1 },
        '/b': async () => {
          throw ApplicationFailure.nonRetryable('the server answered 410', 'http_status');
        },
      },
    });
    const result = await handle.result();
    assert.equal(job.runs.get('/a/2'), 3, 'deferred twice, then run');
    assert.equal(result.failed, 1);
    assert.equal(result.completed, 9, 'the failed page found no links: its three pages were never queued');
    const log = logOf(job);
    assert.deepEqual(urlsOf(log, 'page.failed'), ['/b']);
    const failed = log.find((e) => e.type === 'page.failed');
    assert.equal((failed?.data as { error_category?: string } | undefined)?.error_category, 'http_status');
    assert.equal(urlsOf(log, 'page.completed').filter((u) => u === '/a/2').length, 1);
    assert.equal(log.at(-1)?.type, 'job.completed');
  });

  test('a history that fills up continues as new: every page once, the frontier chunks dropped', async () => {
    const links: Record<string, string[]> = { '/': Array.from({ length: 30 }, (_, i) => `/item/${i}`) };
    const { handle, job, jobId } = await startCrawl({ links }, { history_limit: 40, concurrency: 2 });
    const result = await handle.result();
    assert.ok(result.runs > 0, 'the crawl continued as new');
    assert.equal(result.completed, 31);
    const pages = urlsOf(logOf(job), 'page.completed');
    assert.equal(new Set(pages).size, 31);
    assert.equal(pages.length, 31);
    assert.ok([...job.runs.values()].every((n) => n === 1));
    assert.equal([...chunks.keys()].filter((k) => k.startsWith(jobId)).length, 0, 'chunks left behind');
  });

  test('a cancellation records the pages in flight as skipped in their seqs, then job.cancelled', async () => {
    let started = 0;
    const hang: PageBehaviour = async () => {
      started++;
      // Until the workflow cancels it (heartbeats carry the cancellation to the activity).
      for (;;) {
        Context.current().heartbeat();
        await Context.current().sleep(50);
      }
    };
    const { handle, job } = await startCrawl({
      links: { '/': ['/slow1', '/slow2'] },
      behaviour: { '/slow1': hang, '/slow2': hang },
    });
    // A busy machine may take seconds to start them: wait on the count, with a deadline far past that.
    for (const deadline = Date.now() + 60_000; started < 2 && Date.now() < deadline; )
      await new Promise((r) => setTimeout(r, 50));
    assert.equal(started, 2, 'both slow pages started');
    await handle.cancel();
    await assert.rejects(handle.result());
    const log = logOf(job);
    assert.deepEqual(urlsOf(log, 'page.skipped'), ['/slow1', '/slow2']);
    for (const e of log.filter((x) => x.type === 'page.skipped'))
      assert.equal((e.data as { error_category: string }).error_category, 'cancelled');
    assert.equal(log.at(-1)?.type, 'job.cancelled');
  });
});
