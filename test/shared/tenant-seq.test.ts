// Job numbers per tenant: jobs created at the same moment each get their own number, so each appears in
// the tenant's job list (FerretDB applies an update as a read and a write, without a transaction).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { COLLECTIONS } from '../../shared/store/mongo.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;

before(async () => {
  svc = await startTestService({ worker: false });
});
after(async () => {
  await svc?.close();
});

test('30 job numbers taken at once for one tenant are 30 distinct numbers', async () => {
  const tenant = `ten_${randomUUID().slice(0, 8)}`;
  const numbers = await Promise.all(
    Array.from({ length: 30 }, (_, i) => svc.deps.jobs.nextTenantSeq(tenant, `job_${i}`)),
  );
  assert.equal(new Set(numbers).size, 30, `duplicates in ${numbers.join(',')}`);
  assert.deepEqual(
    [...numbers].sort((a, b) => a - b),
    Array.from({ length: 30 }, (_, i) => i + 1),
  );
});

test('jobs created at the same moment all appear in the tenant job list', async () => {
  const before = (await svc.app.inject({ url: '/api/v1/jobs?limit=100', headers: svc.auth() })).json();
  const created = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      svc.app.inject({
        method: 'POST',
        url: '/api/v1/crawl',
        headers: svc.auth(),
        payload: { url: `http://127.0.0.1:9/page-${i}`, schema: { title: 'string' } },
      }),
    ),
  );
  const ids = created.map((res) => {
    assert.equal(res.statusCode, 202, res.body);
    return res.json().job_id as string;
  });
  const list = (await svc.app.inject({ url: '/api/v1/jobs?limit=100', headers: svc.auth() })).json();
  const listed = new Set((list.jobs as { id: string }[]).map((j) => j.id));
  for (const id of ids) assert.ok(listed.has(id), `job ${id} missing from the list`);
  assert.equal(list.jobs.length, before.jobs.length + 12);
});

test('queue_position counts only jobs still pending, whatever the pending set kept', async () => {
  const crawl = async (i: number) => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/crawl',
      headers: svc.auth(),
      payload: { url: `http://127.0.0.1:9/queued-${i}`, schema: { title: 'string' } },
    });
    assert.equal(res.statusCode, 202, res.body);
    return res.json().job_id as string;
  };
  const position = async (id: string) =>
    (await svc.app.inject({ url: `/api/v1/jobs/${id}`, headers: svc.auth() })).json().queue_position;
  // No worker runs here, so every job stays pending; the first one is then shown finished while its
  // number stays in the pending set, as when its $pull was lost.
  const first = await crawl(1);
  const second = await crawl(2);
  const third = await crawl(3);
  const before = await position(third);
  await svc.mongo.db
    .collection(COLLECTIONS.jobs)
    .updateOne({ _id: first as never }, { $set: { status: 'completed' } });
  assert.equal(await position(third), before - 1);
  assert.ok((await position(second)) < before - 1);
});
