// The job stream's pure parts: which events a log produces for a client (fresh or resuming) and the framing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JobEvent } from '../../shared/events.js';
import { StreamEventSchema } from '../../shared/schemas/stream.js';
import {
  formatSseFrame,
  HEARTBEAT_FRAME,
  JobStreamCursor,
  resumePoint,
  SSE_RETRY_MS,
} from '../../shared/sse-events.js';
import { jobLog } from '../support/job-log.js';

const RESULTS = '/api/v1/jobs/j1/results';

function crawlLog() {
  const log = jobLog('j1', 't1');
  return [
    log.created('crawl'), // 0
    log.started(), // 1
    log.discovered(['https://a.test/'], 0), // 2
    log.completed('https://a.test/', { title: 'A' }, 0), // 3
    log.failed('https://a.test/missing'), // 4
    log.failed('https://a.test/robots', undefined, 'page.skipped'), // 5
    log.jobCompleted(), // 6
  ];
}

const run = (cursor: JobStreamCursor, events: JobEvent[]) => events.flatMap((e) => cursor.next(e));
const summary = (out: ReturnType<typeof run>) => out.map((e) => `${e.event}@${e.id}`);

describe('JobStreamCursor', () => {
  test('a fresh client gets status first, results, errors, progress and complete, all valid envelopes', () => {
    const cursor = new JobStreamCursor(null, RESULTS);
    const out = run(cursor, crawlLog());
    assert.deepEqual(summary(out), [
      'status@0',
      'status@10',
      'status@20',
      'result@30',
      'status@31',
      'result@40',
      'error@41',
      'status@42',
      'result@50',
      'status@51',
      'complete@60',
    ]);
    for (const e of out) StreamEventSchema.parse(e);
    assert.ok(out.every((e) => e.retry === SSE_RETRY_MS));
    assert.equal(cursor.done, true);
    assert.deepEqual(out[0]?.data, {
      job_id: 'j1',
      status: 'pending',
      page_count: 0,
      urls_queued: 0,
      failed_count: 0,
      token_usage_input: 0,
      token_usage_output: 0,
      cost_usd: 0,
      budget_exhausted: false,
    });
    assert.deepEqual(out[3]?.data, {
      id: 'page-3',
      url: 'https://a.test/',
      status: 'completed',
      data: { title: 'A' },
      error_category: null,
      error_message: null,
      llm_provider: 'openai',
      llm_model: 'gpt-4o-mini',
    });
    assert.deepEqual(out[6]?.data, {
      job_id: 'j1',
      url: 'https://a.test/missing',
      error_category: 'http_status',
      error_message: 'HTTP 404',
      message: 'https://a.test/missing: HTTP 404',
    });
    assert.equal((out[8]!.data as { status: string }).status, 'skipped');
    assert.deepEqual(out.at(-1)?.data, {
      job_id: 'j1',
      status: 'completed',
      page_count: 1,
      failed_count: 1,
      cost_usd: 0.001,
      budget_exhausted: false,
      error_category: 'http_status',
      error_message: 'HTTP 404',
      results_url: RESULTS,
    });
    assert.deepEqual(cursor.next(crawlLog()[6] as JobEvent), [], 'nothing after complete');
  });

  test('a client resuming after any id gets exactly the events with a larger id', () => {
    const full = run(new JobStreamCursor(null, RESULTS), crawlLog());
    for (const [i, seen] of full.slice(0, -1).entries()) {
      const resumed = run(new JobStreamCursor(seen.id, RESULTS), crawlLog());
      assert.deepEqual(resumed, full.slice(i + 1), `after ${seen.event}@${seen.id}`);
    }
    assert.deepEqual(summary(run(new JobStreamCursor(30, RESULTS), crawlLog())).slice(0, 2), [
      'status@31',
      'result@40',
    ]);
  });

  test('a client that already saw the end gets complete again, so it does not wait forever', () => {
    assert.deepEqual(summary(run(new JobStreamCursor(60, RESULTS), crawlLog())), ['complete@60']);
    assert.deepEqual(summary(run(new JobStreamCursor(999, RESULTS), crawlLog())), ['complete@60']);
  });

  test('a resume point beyond a running log yields nothing until later events pass it', () => {
    const log = crawlLog();
    const cursor = new JobStreamCursor(35, RESULTS);
    assert.deepEqual(run(cursor, log.slice(0, 4)), []);
    assert.equal(cursor.lastSeq, 3, 'the log was folded');
    assert.deepEqual(summary(run(cursor, log.slice(4, 5))), ['result@40', 'error@41', 'status@42']);
  });

  test('events already folded are ignored (a re-read never duplicates)', () => {
    const log = crawlLog();
    const cursor = new JobStreamCursor(null, RESULTS);
    run(cursor, log.slice(0, 4));
    assert.deepEqual(run(cursor, log.slice(2, 4)), []);
  });

  test("an extract job's failed page is told by result and complete, not by error", () => {
    const log = jobLog('j2', 't1');
    const cursor = new JobStreamCursor(null, RESULTS);
    const out = run(cursor, [
      log.created('extract'),
      log.started(),
      log.failed('https://a.test/'),
      log.jobFailed(),
    ]);
    assert.deepEqual(summary(out), ['status@0', 'status@10', 'result@20', 'status@21', 'complete@30']);
    assert.equal((out.at(-1)!.data as { status: string }).status, 'failed');
  });
});

describe('SSE framing', () => {
  test('an event is id, event, retry and one data line, ended by a blank line', () => {
    const frame = formatSseFrame({
      event: 'error',
      id: 7,
      retry: 3000,
      data: {
        job_id: 'j',
        url: 'u',
        error_category: 'unknown',
        error_message: 'line 1\nline 2\r\n',
        message: 'u: line 1\nline 2\r\n',
      },
    });
    assert.equal(
      frame,
      'id: 7\nevent: error\nretry: 3000\ndata: {"job_id":"j","url":"u","error_category":"unknown",' +
        '"error_message":"line 1\\nline 2\\r\\n","message":"u: line 1\\nline 2\\r\\n"}\n\n',
    );
    assert.equal(HEARTBEAT_FRAME, ': heartbeat\n\n');
  });

  test('the resume point comes from Last-Event-ID when it is a seq, else from the query', () => {
    assert.equal(resumePoint('12', undefined), 12);
    assert.equal(resumePoint(' 12 ', 3), 12);
    assert.equal(resumePoint(undefined, 3), 3);
    assert.equal(resumePoint('abc', 3), 3);
    assert.equal(resumePoint('-1', undefined), null);
    assert.equal(resumePoint(undefined, undefined), null);
  });
});
