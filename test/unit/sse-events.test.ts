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
      'status@1',
      'status@2',
      'result@3',
      'status@3',
      'result@4',
      'error@4',
      'status@4',
      'result@5',
      'status@5',
      'complete@6',
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
    });
    assert.deepEqual(out[3]?.data, {
      id: 'page-3',
      url: 'https://a.test/',
      status: 'completed',
      data: { title: 'A' },
      error_category: null,
      error_message: null,
    });
    assert.deepEqual(out[6]?.data, {
      job_id: 'j1',
      url: 'https://a.test/missing',
      error_category: 'http_status',
      error_message: 'HTTP 404',
    });
    assert.equal((out[8]!.data as { status: string }).status, 'skipped');
    assert.deepEqual(out.at(-1)?.data, {
      job_id: 'j1',
      status: 'completed',
      page_count: 1,
      failed_count: 1,
      cost_usd: 0.001,
      error_category: 'http_status',
      error_message: 'HTTP 404',
      results_url: RESULTS,
    });
    assert.deepEqual(cursor.next(crawlLog()[6] as JobEvent), [], 'nothing after complete');
  });

  test('a resuming client gets the status as of its last event, then only what came after', () => {
    const cursor = new JobStreamCursor(3, RESULTS);
    const out = run(cursor, crawlLog());
    assert.deepEqual(summary(out), [
      'status@3',
      'result@4',
      'error@4',
      'status@4',
      'result@5',
      'status@5',
      'complete@6',
    ]);
    assert.equal((out[0]!.data as { page_count: number }).page_count, 1);
  });

  test('a client that already saw the end gets status and complete again, so it does not wait forever', () => {
    const cursor = new JobStreamCursor(6, RESULTS);
    assert.deepEqual(summary(run(cursor, crawlLog())), ['status@6', 'complete@6']);
    const beyond = new JobStreamCursor(99, RESULTS);
    assert.deepEqual(run(beyond, crawlLog()), []);
    assert.deepEqual(summary(beyond.caughtUp()), ['status@6', 'complete@6']);
  });

  test('a resume point beyond a running log is answered at the log end, and the stream goes on from there', () => {
    const log = crawlLog();
    const cursor = new JobStreamCursor(50, RESULTS);
    assert.deepEqual(run(cursor, log.slice(0, 3)), []);
    assert.deepEqual(summary(cursor.caughtUp()), ['status@2']);
    assert.deepEqual(cursor.caughtUp(), [], 'announced once');
    assert.deepEqual(summary(run(cursor, log.slice(3, 4))), ['result@3', 'status@3']);
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
    assert.deepEqual(summary(out), ['status@0', 'status@1', 'result@2', 'status@2', 'complete@3']);
    assert.equal((out.at(-1)!.data as { status: string }).status, 'failed');
  });
});

describe('SSE framing', () => {
  test('an event is id, event, retry and one data line, ended by a blank line', () => {
    const frame = formatSseFrame({
      event: 'error',
      id: 7,
      retry: 3000,
      data: { job_id: 'j', url: 'u', error_category: 'unknown', error_message: 'line 1\nline 2\r\n' },
    });
    assert.equal(
      frame,
      'id: 7\nevent: error\nretry: 3000\ndata: {"job_id":"j","url":"u","error_category":"unknown",' +
        '"error_message":"line 1\\nline 2\\r\\n"}\n\n',
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
