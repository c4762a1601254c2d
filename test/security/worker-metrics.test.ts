// The worker's own /metrics follows the API's rule: without METRICS_TOKEN it listens on loopback only, so a
// worker told to listen on every address serves nothing rather than its counts to whoever reaches it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { freePort } from '../../scripts/lib/ports.js';
import { startMetricsServer } from '../../worker/metrics-server.js';

const registry = new Registry();

test('without a token, a worker metrics server beyond loopback is not started', async () => {
  const wide = await startMetricsServer(registry, {
    WORKER_METRICS_HOST: '0.0.0.0',
    WORKER_METRICS_PORT: await freePort(),
    METRICS_TOKEN: undefined,
  });
  assert.equal(wide, null, 'no token and a non-loopback host: no server');
});

test('on loopback, or with a token, it serves (the token then required)', async () => {
  const local = await startMetricsServer(registry, {
    WORKER_METRICS_HOST: '127.0.0.1',
    WORKER_METRICS_PORT: await freePort(),
    METRICS_TOKEN: undefined,
  });
  assert.ok(local);
  assert.equal((await fetch(`http://127.0.0.1:${local.port}/metrics`)).status, 200);
  await local.close();
  const tokened = await startMetricsServer(registry, {
    WORKER_METRICS_HOST: '0.0.0.0',
    WORKER_METRICS_PORT: await freePort(),
    METRICS_TOKEN: 'scrape-token',
  });
  assert.ok(tokened);
  try {
    assert.equal((await fetch(`http://127.0.0.1:${tokened.port}/metrics`)).status, 401);
    const ok = await fetch(`http://127.0.0.1:${tokened.port}/metrics`, {
      headers: { authorization: 'Bearer scrape-token' },
    });
    assert.equal(ok.status, 200);
  } finally {
    await tokened.close();
  }
});
