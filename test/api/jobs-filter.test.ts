// GET /api/v1/jobs?type=&status=: the filter is applied by the service while it walks the tenant's job list
// (limit and offset count the jobs kept), across more jobs than one read batch, for the caller's tenant only.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { JobType } from '../../shared/temporal-names.js';
import { jobLog } from '../support/job-log.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
/** The seeded jobs, oldest first. */
const seeded: { id: string; type: JobType; status: string }[] = [];

async function seed(tenantId: string, type: JobType, status: 'completed' | 'failed' | 'running') {
  const id = `job_${randomUUID().replaceAll('-', '')}`;
  const log = jobLog(id, tenantId);
  await svc.deps.events.append([log.created(type, `https://shop.test/${seeded.length}`), log.started()]);
  await svc.deps.jobs.nextTenantSeq(tenantId, id);
  if (status === 'completed') await svc.deps.events.append([log.jobCompleted()]);
  if (status === 'failed') await svc.deps.events.append([log.jobFailed()]);
  return id;
}

before(async () => {
  svc = await startTestService({ worker: false });
  const types: JobType[] = ['extract', 'crawl', 'map'];
  for (let i = 1; i <= 22; i++) {
    const type = types[i % 3]!;
    const status = i % 4 === 0 ? 'failed' : i % 5 === 0 ? 'running' : 'completed';
    seeded.push({ id: await seed(svc.tenantId, type, status), type, status });
  }
});
after(async () => svc?.close());

const list = async (query: string, key?: string) => {
  const res = await svc.app.inject({ method: 'GET', url: `/api/v1/jobs?${query}`, headers: svc.auth(key) });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().jobs as { id: string; type: string; status: string }[]).map((j) => j.id);
};
const expected = (keep: (j: (typeof seeded)[number]) => boolean) =>
  seeded
    .filter(keep)
    .reverse()
    .map((j) => j.id);

describe('GET /api/v1/jobs filters', () => {
  test('type, status and both: every match, newest first, across read batches', async () => {
    assert.deepEqual(
      await list('limit=100'),
      expected(() => true),
    );
    assert.deepEqual(
      await list('type=extract&limit=100'),
      expected((j) => j.type === 'extract'),
    );
    assert.deepEqual(
      await list('status=failed&limit=100'),
      expected((j) => j.status === 'failed'),
    );
    assert.deepEqual(
      await list('type=crawl&status=completed&limit=100'),
      expected((j) => j.type === 'crawl' && j.status === 'completed'),
    );
    assert.deepEqual(await list('status=cancelled'), []);
  });

  test('limit and offset count the jobs kept', async () => {
    const all = expected((j) => j.status === 'completed');
    assert.ok(all.length > 6);
    assert.deepEqual(await list('status=completed&limit=3'), all.slice(0, 3));
    assert.deepEqual(await list('status=completed&limit=3&offset=3'), all.slice(3, 6));
    assert.deepEqual(await list(`status=completed&offset=${all.length}`), []);
  });

  test("unknown values are a 422 naming the parameter; another tenant's jobs never match", async () => {
    const bad = await svc.app.inject({ method: 'GET', url: '/api/v1/jobs?type=scrape', headers: svc.auth() });
    assert.equal(bad.statusCode, 422, bad.body);
    assert.ok(
      bad.json().errors.some((e: { location: string }) => e.location === 'query.type'),
      bad.body,
    );
    const other = await svc.newTenant('tenant-other');
    const theirs = await seed(other.tenantId, 'extract', 'completed');
    assert.ok(!(await list('type=extract&limit=100')).includes(theirs));
    assert.deepEqual(await list('type=extract', other.apiKey), [theirs]);
  });
});
