// The pure reducers behind the `jobs` and `results` read models: replay equals batches, re-applying is a
// no-op, totals add up, and the final transitions land where the job model says.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ErrorCategory } from '../../shared/errors.js';
import type { JobEvent, JobEventBody, Usage } from '../../shared/events.js';
import { applyJobEvent, isFinal, type JobView, reduceJob } from '../../shared/reducers/job.js';
import { type ResultView, resultFromEvent } from '../../shared/reducers/results.js';

const JOB = 'job_1';
const TENANT = 'ten_1';
const T0 = Date.parse('2026-11-23T10:00:00.000Z');

/** Numbers events from seq 0, one second apart, as the API and the workflow do. */
function history(...bodies: JobEventBody[]): JobEvent[] {
  return bodies.map(
    (body, seq) =>
      ({
        ...body,
        job_id: JOB,
        tenant_id: TENANT,
        seq,
        event_id: `evt_${seq}`,
        at: new Date(T0 + seq * 1000).toISOString(),
      }) as JobEvent,
  );
}

const created = (): JobEventBody => ({
  type: 'job.created',
  data: {
    job_type: 'crawl',
    url: 'https://shop.example/',
    capture_debug: false,
    workflow_id: `crawl-${JOB}`,
    idempotency_key: 'key-1',
  },
});
const started = (): JobEventBody => ({ type: 'job.started', data: {} });

function usage(input: number, output: number, llm: number, cost: number, isByok = false): Usage {
  return { input_tokens: input, output_tokens: output, llm_cost_usd: llm, cost_usd: cost, is_byok: isByok };
}

function pageCompleted(url: string, u: Usage): JobEventBody {
  return {
    type: 'page.completed',
    data: {
      page_id: `page:${url}`,
      url,
      final_url: `${url}?final`,
      depth: 1,
      parent_url: 'https://shop.example/',
      data: { title: url },
      input_format: 'fields',
      fetch_mode: 'static',
      fetched_at: '2026-11-23T10:00:00.500Z',
      fetch_duration_ms: 120,
      clean_duration_ms: 5,
      extract_duration_ms: 900,
      provider: 'openai',
      model: 'gpt-4o-mini',
      fallback_position: 0,
      usage: u,
      price_known: true,
    },
  };
}

function pageFailed(url: string, category: ErrorCategory, message: string): JobEventBody {
  return {
    type: 'page.failed',
    data: {
      page_id: `page:${url}`,
      url,
      depth: 1,
      parent_url: 'https://shop.example/',
      error_category: category,
      error_message: message,
    },
  };
}

/** A finished crawl: three pages done (one BYOK), one failed. */
const CRAWL = history(
  created(),
  started(),
  pageCompleted('https://shop.example/a', usage(1000, 200, 0.00027, 0.0003)),
  pageCompleted('https://shop.example/b', usage(1500, 100, 0.000285, 0.0004)),
  pageFailed('https://shop.example/c', 'http_status', 'the page answered 404'),
  pageCompleted('https://shop.example/d', usage(10, 20, 0.1, 0.2, true)),
  { type: 'job.completed', data: { duration_ms: 6000 } },
);

/** The view's values for the keys of `like`: fields added to the view later do not break the comparison. */
function pick(view: JobView | null, like: Partial<JobView>): Partial<JobView> {
  assert.ok(view);
  return Object.fromEntries(Object.keys(like).map((key) => [key, view[key as keyof JobView]]));
}

/** The store's way: the first batch through reduceJob, later batches folded onto the stored view. */
function applyInBatches(events: JobEvent[], sizes: number[]): JobView | null {
  let view: JobView | null = null;
  let at = 0;
  for (const size of sizes) {
    const batch = events.slice(at, at + size);
    at += size;
    view = view ? batch.reduce(applyJobEvent, view) : reduceJob(batch);
  }
  return view;
}

describe('reduceJob', () => {
  test('a full crawl history: status, timestamps, counts and summed totals', () => {
    const expected: Partial<JobView> = {
      id: JOB,
      tenant_id: TENANT,
      type: 'crawl',
      url: 'https://shop.example/',
      status: 'completed',
      workflow_id: `crawl-${JOB}`,
      capture_debug: false,
      idempotency_key: 'key-1',
      created_at: '2026-11-23T10:00:00.000Z',
      started_at: '2026-11-23T10:00:01.000Z',
      completed_at: '2026-11-23T10:00:06.000Z',
      duration_ms: 6000,
      page_count: 3,
      failed_count: 1,
      urls_queued: 0,
      token_usage_input: 2510,
      token_usage_output: 320,
      llm_cost_usd: 0.100555,
      cost_usd: 0.2007,
      is_byok: true,
      // A crawl with some failed pages is completed, with the failure summarised.
      error_category: 'http_status',
      error_message: 'the page answered 404',
      last_seq: 6,
    };
    assert.deepEqual(pick(reduceJob(CRAWL), expected), expected);
  });

  test('returns null without job.created', () => {
    assert.equal(reduceJob([]), null);
    assert.equal(reduceJob(CRAWL.slice(1)), null);
  });

  test('a created job is pending until started, then running', () => {
    assert.equal(reduceJob(CRAWL.slice(0, 1))?.status, 'pending');
    assert.equal(reduceJob(CRAWL.slice(0, 1))?.started_at, null);
    assert.equal(reduceJob(CRAWL.slice(0, 2))?.status, 'running');
    assert.equal(reduceJob(CRAWL.slice(0, 4))?.status, 'running');
  });

  test('costs are summed without floating-point noise', () => {
    const events = history(
      created(),
      pageCompleted('https://shop.example/a', usage(1, 1, 0.1, 0.1)),
      pageCompleted('https://shop.example/b', usage(1, 1, 0.2, 0.2)),
    );
    assert.equal(reduceJob(events)?.llm_cost_usd, 0.3);
    assert.equal(reduceJob(events)?.cost_usd, 0.3);
  });

  test('job.failed: status, timing and the job-level error', () => {
    const job = reduceJob(
      history(
        created(),
        started(),
        pageFailed('https://shop.example/', 'fetch_timeout', 'no answer in 20 s'),
        {
          type: 'job.failed',
          data: { error_category: 'fetch_timeout', error_message: 'no page succeeded', duration_ms: 21000 },
        },
      ),
    );
    assert.equal(job?.status, 'failed');
    assert.equal(job?.completed_at, '2026-11-23T10:00:03.000Z');
    assert.equal(job?.duration_ms, 21000);
    assert.equal(job?.failed_count, 1);
    assert.equal(job?.page_count, 0);
    assert.equal(job?.error_category, 'fetch_timeout');
    assert.equal(job?.error_message, 'no page succeeded');
  });

  test('job.cancelled: status and the cancelled category', () => {
    const job = reduceJob(
      history(created(), started(), { type: 'job.cancelled', data: { duration_ms: 1500 } }),
    );
    assert.equal(job?.status, 'cancelled');
    assert.equal(job?.completed_at, '2026-11-23T10:00:02.000Z');
    assert.equal(job?.duration_ms, 1500);
    assert.equal(job?.error_category, 'cancelled');
    assert.match(job?.error_message ?? '', /cancelled/);
  });

  test('a late job.started does not reopen a finished job', () => {
    const [c, s, done] = history(created(), started(), { type: 'job.completed', data: { duration_ms: 10 } });
    const late = { ...s!, seq: 3, event_id: 'evt_late' } as JobEvent;
    assert.equal(reduceJob([c!, done!, late])?.status, 'completed');
  });
});

describe('isFinal', () => {
  test('completed, failed and cancelled are final; pending and running are not', () => {
    assert.deepEqual((['pending', 'running', 'completed', 'failed', 'cancelled'] as const).map(isFinal), [
      false,
      false,
      true,
      true,
      true,
    ]);
  });
});

describe('applyJobEvent', () => {
  test('applying in batches equals reducing the full history, for every split', () => {
    const whole = reduceJob(CRAWL);
    for (const sizes of [[7], [1, 6], [2, 5], [1, 1, 1, 1, 1, 1, 1], [3, 1, 3], [6, 1]]) {
      assert.deepEqual(applyInBatches(CRAWL, sizes), whole, `batches ${sizes.join('+')}`);
    }
  });

  test('re-applying an event is a no-op that returns the same view', () => {
    const job = reduceJob(CRAWL.slice(0, 3))!;
    assert.equal(applyJobEvent(job, CRAWL[2]!), job);
    assert.equal(applyJobEvent(job, CRAWL[1]!), job);
    assert.equal(applyJobEvent(job, CRAWL[0]!), job);
  });

  test('replaying an overlapping batch (a retried append) changes nothing', () => {
    const once = applyInBatches(CRAWL, [4, 3]);
    let view = reduceJob(CRAWL.slice(0, 4))!;
    view = CRAWL.slice(2).reduce(applyJobEvent, view); // events 2 and 3 arrive a second time
    view = CRAWL.reduce(applyJobEvent, view); // and then the whole history again
    assert.deepEqual(view, once);
    assert.equal(view.page_count, 3);
    assert.equal(view.token_usage_input, 2510);
  });

  test('a duplicate job.created in the history is harmless', () => {
    const again = { ...CRAWL[0]!, seq: 7, event_id: 'evt_dup' } as JobEvent;
    const job = reduceJob([...CRAWL, again]);
    assert.equal(job?.status, 'completed');
    assert.equal(job?.last_seq, 7);
    assert.equal(job?.created_at, '2026-11-23T10:00:00.000Z');
  });

  test('does not modify the view it is given', () => {
    const job = reduceJob(CRAWL.slice(0, 2))!;
    const snapshot = structuredClone(job);
    applyJobEvent(job, CRAWL[2]!);
    assert.deepEqual(job, snapshot);
  });
});

describe('resultFromEvent', () => {
  test('page.completed becomes a completed result with its usage', () => {
    const event = CRAWL[2]!;
    assert.deepEqual(resultFromEvent(event), {
      id: 'page:https://shop.example/a',
      job_id: JOB,
      tenant_id: TENANT,
      seq: 2,
      node: null,
      completed_at: '2026-11-23T10:00:02.000Z',
      url: 'https://shop.example/a',
      final_url: 'https://shop.example/a?final',
      status: 'completed',
      depth: 1,
      parent_url: 'https://shop.example/',
      data: { title: 'https://shop.example/a' },
      input_format: 'fields',
      fetch_mode: 'static',
      fetched_at: '2026-11-23T10:00:00.500Z',
      fetch_duration_ms: 120,
      clean_duration_ms: 5,
      extract_duration_ms: 900,
      provider: 'openai',
      model: 'gpt-4o-mini',
      fallback_position: 0,
      input_tokens: 1000,
      output_tokens: 200,
      llm_cost_usd: 0.00027,
      cost_usd: 0.0003,
      is_byok: false,
      price_known: true,
      provenance: null,
      // Recorded without a data source (before structured data was read): the model answered it.
      data_source: 'model',
      structured_fields: [],
      error_category: null,
      error_message: null,
    } satisfies ResultView);
  });

  test("a re-done page takes its earlier result's place and is not one more page; provenance is counted", () => {
    const first = CRAWL[2] as Extract<JobEvent, { type: 'page.completed' }>;
    const redone = {
      ...first,
      seq: 9,
      event_id: 'evt_redo',
      data: {
        ...first.data,
        data_source: 'model' as const,
        provenance: { title: { source: 'model' as const, in_page: false } },
        revises: { seq: 2, data_source: 'learned_extractor' as const, values: { learned_extractor: 1 } },
      },
    };
    assert.equal(resultFromEvent(redone)?.seq, 2);
    const before = reduceJob(CRAWL.slice(0, 3)) as JobView;
    const learned = {
      ...before,
      pages_by_source: { structured_data: 0, learned_extractor: 1, model: 0, mixed: 0 },
      values_by_source: { structured_data: 0, learned_extractor: 1, model: 0, model_not_in_page: 0 },
    };
    const after = applyJobEvent(learned, redone);
    assert.equal(after.page_count, before.page_count);
    assert.deepEqual(after.pages_by_source, { structured_data: 0, learned_extractor: 0, model: 1, mixed: 0 });
    assert.deepEqual(after.values_by_source, {
      structured_data: 0,
      learned_extractor: 0,
      model: 1,
      model_not_in_page: 1,
    });
    assert.equal(after.token_usage_input, before.token_usage_input + first.data.usage.input_tokens);
  });

  test('page.failed becomes a failed result with no data and no cost', () => {
    const result = resultFromEvent(CRAWL[4]!);
    assert.equal(result?.status, 'failed');
    assert.equal(result?.url, 'https://shop.example/c');
    assert.equal(result?.final_url, 'https://shop.example/c');
    assert.equal(result?.data, null);
    assert.equal(result?.error_category, 'http_status');
    assert.equal(result?.error_message, 'the page answered 404');
    assert.equal(result?.input_tokens, 0);
    assert.equal(result?.cost_usd, 0);
    assert.equal(result?.provider, null);
  });

  test('job-level events touch no result', () => {
    for (const event of [CRAWL[0]!, CRAWL[1]!, CRAWL[6]!]) assert.equal(resultFromEvent(event), null);
  });

  test('the per-page projection from batches and replays equals the one from the full history', () => {
    // The store keeps one document per (job, url) and lets only a newer seq replace it.
    const project = (events: JobEvent[], into = new Map<string, ResultView>()) => {
      for (const event of events) {
        const view = resultFromEvent(event);
        if (!view) continue;
        const key = `${view.job_id}:${view.url}`;
        const current = into.get(key);
        if (!current || current.seq < view.seq) into.set(key, view);
      }
      return into;
    };
    // The failed page is retried later and succeeds: its newer result must win.
    const retried = [
      ...CRAWL,
      ...history(pageCompleted('https://shop.example/c', usage(5, 5, 0, 0))).map(
        (e) => ({ ...e, seq: 7 }) as JobEvent,
      ),
    ];
    const whole = project(retried);
    const batched = project(retried.slice(4), project(retried.slice(0, 4)));
    const replayed = project(retried.slice(0, 6), project(retried));
    assert.deepEqual(batched, whole);
    assert.deepEqual(replayed, whole);
    assert.equal(whole.size, 4);
    assert.equal(whole.get(`${JOB}:https://shop.example/c`)?.status, 'completed');
  });
});

describe('budgets', () => {
  const skipped = (node: number, category: ErrorCategory): JobEventBody => ({
    type: 'page.skipped',
    data: {
      node,
      page_id: `p${node}`,
      url: `https://shop.example/${node}`,
      depth: 1,
      parent_url: 'https://shop.example/',
      error_category: category,
      error_message: 'refused',
    },
  });
  const discovered = (n: number): JobEventBody => ({
    type: 'crawl.discovered',
    data: {
      nodes: Array.from({ length: n }, (_, node) => ({
        node,
        url: `https://shop.example/${node}`,
        parent_url: null,
        depth: 1,
        status: 'pending' as const,
      })),
    },
  });

  test('the job shows the budget its request gave, none as null', () => {
    const base = created() as Extract<JobEventBody, { type: 'job.created' }>;
    const withBudget: JobEventBody = {
      ...base,
      data: { ...base.data, request: { budget: { maxCostUsd: 0.5 } } },
    };
    assert.deepEqual(reduceJob(history(withBudget))?.budget, { max_cost_usd: 0.5, max_tokens: null });
    assert.deepEqual(reduceJob(history(created()))?.budget, { max_cost_usd: null, max_tokens: null });
    assert.equal(reduceJob(history(created()))?.budget_exhausted, false);
  });

  test('a page a budget refused marks the job at once; its end with budget_exhausted empties the queue', () => {
    const running = history(created(), started(), discovered(5), skipped(0, 'quota_exceeded'));
    assert.equal(reduceJob(running)?.budget_exhausted, true);
    assert.equal(reduceJob(running)?.urls_queued, 4);
    const ended = history(created(), started(), discovered(5), skipped(0, 'quota_exceeded'), {
      type: 'job.completed',
      data: { duration_ms: 10, budget_exhausted: true },
    });
    const job = reduceJob(ended);
    assert.equal(job?.status, 'completed');
    assert.equal(job?.budget_exhausted, true);
    assert.equal(job?.urls_queued, 0);
    // A page skipped for another reason says nothing about budgets.
    assert.equal(reduceJob(history(created(), skipped(0, 'robots_disallowed')))?.budget_exhausted, false);
  });
});
