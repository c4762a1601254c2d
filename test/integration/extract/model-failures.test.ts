// Model failures reach the caller of a waited extract well: a hung model's failure is the
// answer, not a 202 a moment before the job fails; a provider's 429 is a job failure of its own type, with
// the provider's Retry-After.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { retryAfterSeconds } from '../../../activities/extraction/llm/providers.js';
import { STEP_TIMEOUTS } from '../../../activities/extraction/llm/step-time.js';
import { waitForJobEnd } from '../../support/crawl-jobs.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

const LLM_TIMEOUT_MS = 3_000;
let svc: TestService;
let site: FixtureSite;

before(async () => {
  // The wait is over a waited job's model step (STEP_TIMEOUTS × LLM_TIMEOUT_MS = 4.5 s) and its fetch;
  // before the step had a bound, a hung model took two timeouts and a 2 s backoff (8 s): a 202.
  svc = await startTestService({
    env: { LLM_TIMEOUT_MS: String(LLM_TIMEOUT_MS), EXTRACT_WAIT_SECONDS: '6' },
  });
  site = await startFixtureSite();
  site.route('/kettle', html('Kettle', '<main><h1>Blue Kettle</h1><p>Price: 24.5</p></main>'));
  // The worker's first job pays for its start-up: on a busy machine that may take longer than the wait, so
  // a 202 is waited out (only the tests below are about the wait).
  const warm = await extract();
  assert.ok([200, 202].includes(warm.statusCode), warm.body);
  if (warm.statusCode === 202)
    assert.equal((await waitForJobEnd(svc, warm.json().job_id)).status, 'completed');
});
after(async () => {
  await site?.close();
  await svc?.close();
});
beforeEach(() => svc.llm.reset());

const extract = () =>
  svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { url: `${site.url}/kettle`, schema: { name: 'string', price: 'number' } },
  });

describe('a waited extract whose model fails', () => {
  test('a hung model: the answer is the failure (504 timeout), within the wait, not a 202', async () => {
    svc.llm.enqueueFailure({ kind: 'timeout', count: 10 });
    const started = Date.now();
    const res = await extract();
    const took = Date.now() - started;
    assert.equal(res.statusCode, 504, res.body);
    const problem = res.json();
    assert.equal(problem.type, '/problems/job-failed');
    assert.equal(problem.error_category, 'timeout');
    assert.match(problem.detail, /the model did not answer within 3000 ms/);
    assert.ok(took < STEP_TIMEOUTS * LLM_TIMEOUT_MS + 2_000, `answered after ${took} ms`);
    const job = await svc.deps.jobs.get(svc.tenantId, problem.job_id);
    assert.equal(job?.status, 'failed');
    assert.equal(svc.llm.requests.length, 1, 'the hung model is not asked a second time');
  });

  test("a provider's 429: its own problem type (not rate-limited) with the provider's Retry-After", async () => {
    svc.llm.enqueueFailure({ kind: '429', count: 10, retryAfter: '20' });
    const res = await extract();
    assert.equal(res.statusCode, 429, res.body);
    assert.match(String(res.headers['content-type']), /application\/problem\+json/);
    const problem = res.json();
    assert.equal(
      problem.type,
      '/problems/provider-rate-limited',
      'not /problems/rate-limited, our own limit',
    );
    assert.equal(problem.error_category, 'rate_limit');
    assert.equal(res.headers['retry-after'], '20');
    assert.match(problem.detail, /provider answered 429/);
  });

  test('a provider 429 without Retry-After answers without one; an excessive one is bounded', async () => {
    svc.llm.enqueueFailure({ kind: '429', count: 10, retryAfter: '' });
    const res = await extract();
    assert.equal(res.statusCode, 429, res.body);
    assert.equal(res.json().error_category, 'rate_limit');
    assert.equal(res.headers['retry-after'], undefined);

    svc.llm.reset();
    svc.llm.enqueueFailure({ kind: '429', count: 10, retryAfter: '86400' });
    const long = await extract();
    assert.equal(long.statusCode, 429, long.body);
    assert.equal(long.headers['retry-after'], '600');
  });
});

describe('retryAfterSeconds', () => {
  test('reads retry-after-ms, seconds and HTTP dates, bounded to 1..600 s', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(retryAfterSeconds(new Headers({ 'retry-after-ms': '1500' }), now), 2);
    assert.equal(retryAfterSeconds(new Headers({ 'retry-after': '7' }), now), 7);
    assert.equal(retryAfterSeconds({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }, now), 30);
    assert.equal(retryAfterSeconds(new Headers({ 'retry-after': '0' }), now), 1);
    assert.equal(retryAfterSeconds(new Headers({ 'retry-after': '99999' }), now), 600);
    assert.equal(retryAfterSeconds(new Headers({ 'retry-after': 'soon' }), now), null);
    assert.equal(retryAfterSeconds(new Headers(), now), null);
  });
});
