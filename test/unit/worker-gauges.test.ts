// The worker's browser gauges are read from its pool at scrape time: pages rendering, kept between renders,
// and fetches waiting for a page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMetrics } from '../../shared/metrics/registry.js';
import { countWorker } from '../../shared/metrics/worker-counts.js';
import type { EventStore } from '../../shared/store/event-store.js';

test('browser gauges show the pool as it is at each scrape', async () => {
  const metrics = createMetrics({ processMetrics: false });
  let pool = { activePages: 1, idlePages: 3, waiting: 2 };
  const events = { onWritten: () => () => undefined } as unknown as EventStore;
  const stop = countWorker(metrics, events, { stats: () => pool });
  const value = async (name: string) => {
    const text = await metrics.registry.metrics();
    const line = text.split('\n').find((l) => l.startsWith(`extract_service_${name} `));
    return Number(line?.split(' ')[1]);
  };
  assert.equal(await value('browser_pages_in_use'), 1);
  assert.equal(await value('browser_pages_kept'), 3);
  assert.equal(await value('browser_pages_waiting'), 2);
  pool = { activePages: 0, idlePages: 0, waiting: 0 };
  assert.equal(await value('browser_pages_kept'), 0);
  stop();
});
