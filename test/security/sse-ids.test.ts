// Issue 14: every event of a job stream has its own id, strictly increasing and the same on every
// replay, and Last-Event-ID n resumes with exactly the events after n (a `result` and the `status` after
// it used to share an id, so a resuming client skipped the status).
// Jobs run on the real workflows with fake activities over the shop's page table (test/support/shop-table.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../api/app.js';
import { waitForJobEnd } from '../support/crawl-jobs.js';
import { fakeActivities, type PageTable } from '../support/fake-activities.js';
import { startTestService, type TestService } from '../support/service.js';
import { shopTable } from '../support/shop-table.js';

let svc: TestService;
const site: PageTable = shopTable({ productDelayMs: 150 });
let base: string;

before(async () => {
  svc = await startTestService({
    env: { RATE_LIMIT_PER_MINUTE: '10000' },
    activities: fakeActivities({ pages: site.pages }),
  });
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await svc?.close();
});

interface Frame {
  id: number;
  event: string;
  data: unknown;
}

/** Reads a whole stream (it ends after `complete`) and parses its events. */
async function readStream(origin: string, jobId: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${origin}/api/v1/jobs/${jobId}/stream`, {
    headers: { ...svc.auth(), accept: 'text/event-stream', ...headers },
    signal: AbortSignal.timeout(60_000),
  });
  assert.equal(res.status, 200);
  const frames: Frame[] = [];
  for (const block of (await res.text()).split('\n\n')) {
    const fields = new Map<string, string>();
    for (const line of block.split('\n')) {
      const match = /^(id|event|data): (.*)$/.exec(line);
      if (match) fields.set(match[1] as string, match[2] as string);
    }
    if (!fields.has('event')) continue;
    assert.match(fields.get('id') ?? '', /^\d+$/, 'every event has an integer id');
    frames.push({
      id: Number(fields.get('id')),
      event: fields.get('event') as string,
      data: JSON.parse(fields.get('data') ?? 'null'),
    });
  }
  return frames;
}

const pairs = (frames: Frame[]) => frames.map((f) => `${f.event}@${f.id}`);

describe('job stream event ids', () => {
  let jobId: string;
  let live: Frame[];

  test('a live crawl stream: every id is a unique, strictly increasing integer', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/crawl',
      headers: svc.auth(),
      payload: {
        url: `${site.url}/`,
        schema: { name: 'string', price: 'number' },
        options: { follow_selector: 'a.product', next_selector: 'a.next', max_depth: 1, concurrency: 2 },
      },
    });
    assert.equal(res.statusCode, 202, res.body);
    jobId = res.json().job_id;
    live = await readStream(base, jobId);
    const job = await waitForJobEnd(svc, jobId);
    assert.equal(job.status, 'completed');

    const kinds = new Set(live.map((f) => f.event));
    for (const kind of ['status', 'result', 'error', 'complete']) assert.ok(kinds.has(kind), kind);
    assert.ok(live.filter((f) => f.event === 'result').length >= 10, 'listings and product pages');
    assert.equal(live.at(-1)?.event, 'complete');
    assert.ok(Number.isSafeInteger(live.at(-1)?.id));
    assert.equal(new Set(live.map((f) => f.id)).size, live.length, `unique ids: ${pairs(live)}`);
    for (let i = 1; i < live.length; i++) {
      assert.ok(
        (live[i] as Frame).id > (live[i - 1] as Frame).id,
        `strictly increasing at ${i}: ${pairs(live)}`,
      );
    }
  });

  test('a replay after the job ended, also by a restarted API, has the same events with the same ids', async () => {
    assert.deepEqual(await readStream(base, jobId), live);
    const restarted = await buildApp(svc.deps);
    try {
      const origin = await restarted.listen({ port: 0, host: '127.0.0.1' });
      assert.deepEqual(await readStream(origin, jobId), live);
    } finally {
      await restarted.close();
    }
  });

  test('Last-Event-ID n resumes with exactly the events after n, for every n', async () => {
    const resultThenStatus = live.findIndex(
      (f, i) => f.event === 'result' && live[i + 1]?.event === 'status',
    );
    assert.ok(resultThenStatus >= 0, 'some result is followed by a status');
    const resumedAt = async (i: number) => {
      const n = String((live[i] as Frame).id);
      const resumed = await readStream(base, jobId, { 'last-event-id': n });
      assert.deepEqual(pairs(resumed), pairs(live.slice(i + 1)), `after ${n}`);
      assert.deepEqual(resumed, live.slice(i + 1));
    };
    await resumedAt(resultThenStatus);
    for (let i = 0; i < live.length - 1; i++) await resumedAt(i);

    const byQuery = await fetch(
      `${base}/api/v1/jobs/${jobId}/stream?last_event_id=${(live[resultThenStatus] as Frame).id}`,
      { headers: svc.auth() },
    );
    assert.match(await byQuery.text(), new RegExp(`^id: ${(live[resultThenStatus + 1] as Frame).id}\n`));
  });

  test('a client resuming after complete gets complete again (the same event), so it stops', async () => {
    const last = live.at(-1) as Frame;
    assert.deepEqual(await readStream(base, jobId, { 'last-event-id': String(last.id) }), [last]);
    assert.deepEqual(await readStream(base, jobId, { 'last-event-id': String(last.id + 1000) }), [last]);
  });
});
