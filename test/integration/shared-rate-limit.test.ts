// Two API processes behind one round-robin address share a tenant's rate limit: the window is counted in
// the database, so the tenant gets its limit once per window, not once per process.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RATE_WINDOW_MS } from '../../api/auth.js';
import { type RoundRobinProxy, startRoundRobinProxy } from '../../scripts/cluster/round-robin-proxy.js';
import { type ApiProcess, spawnApiProcess } from '../support/api-process.js';
import { startTestService, type TestService } from '../support/service.js';

const LIMIT = 6;
let svc: TestService;
let apis: ApiProcess[] = [];
let proxy: RoundRobinProxy;

before(async () => {
  svc = await startTestService({ worker: false });
  const env = { RATE_LIMIT_PER_MINUTE: String(LIMIT), JOB_SWEEP_INTERVAL_MS: '3600000' };
  apis = await Promise.all([spawnApiProcess(svc.config, env), spawnApiProcess(svc.config, env)]);
  proxy = await startRoundRobinProxy(apis.map((a) => ({ host: '127.0.0.1', port: a.port })));
});

after(async () => {
  await proxy?.close();
  await Promise.all(apis.map((a) => a.stop()));
  await svc?.close();
});

/** Waits, if need be, for a window to begin, so the requests that follow fall within one window. */
async function startOfWindow(need: number) {
  const into = Date.now() % RATE_WINDOW_MS;
  if (RATE_WINDOW_MS - into < need) await new Promise((r) => setTimeout(r, RATE_WINDOW_MS - into + 50));
  return Math.floor(Date.now() / RATE_WINDOW_MS);
}

test("a tenant's limit holds within one window across two API processes", async () => {
  const { apiKey } = await svc.newTenant('rate-shared');
  const other = await svc.newTenant('rate-other');
  const window = await startOfWindow(20_000);
  const statuses: number[] = [];
  for (let i = 0; i < 3 * LIMIT; i++) {
    const res = await fetch(`http://127.0.0.1:${proxy.port}/api/v1/jobs`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    await res.arrayBuffer();
    statuses.push(res.status);
    if (res.status === 429) {
      assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    }
  }
  assert.equal(Math.floor(Date.now() / RATE_WINDOW_MS), window, 'the requests spanned two windows');
  // Both processes answered (round robin), yet the tenant got its limit once.
  for (const api of apis) assert.ok((proxy.served.get(`127.0.0.1:${api.port}`) ?? 0) >= LIMIT);
  assert.equal(statuses.filter((s) => s === 200).length, LIMIT, `statuses: ${statuses.join(',')}`);
  assert.deepEqual(statuses.slice(LIMIT), Array(2 * LIMIT).fill(429));
  // Another tenant's window is its own.
  const res = await fetch(`http://127.0.0.1:${proxy.port}/api/v1/jobs`, {
    headers: { authorization: `Bearer ${other.apiKey}` },
  });
  assert.equal(res.status, 200);
});
