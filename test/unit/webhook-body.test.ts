import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boundedResults, WEBHOOK_RESULTS_MAX_BYTES } from '../../activities/deliver-webhook.js';
import type { ResultView } from '../../shared/reducers/results.js';

const page = (i: number, text: string) =>
  ({
    id: `p${i}`,
    url: `https://shop.example/item/${i}`,
    status: 'completed',
    data: { text },
    error_category: null,
    error_message: null,
  }) as unknown as ResultView;

test('a job.completed body keeps every result when they fit', async () => {
  const out = await boundedResults([[page(1, 'a')], [page(2, 'b')]]);
  assert.equal(out.results.length, 2);
  assert.equal(out.results_truncated, false);
  assert.equal(out.results_total, 2);
  assert.deepEqual(out.results[1], {
    id: 'p2',
    url: 'https://shop.example/item/2',
    status: 'completed',
    data: { text: 'b' },
  });
});

test('a large crawl is cut at the byte budget, in order, and says so', async () => {
  const big = 'x'.repeat(10_000);
  const results = Array.from({ length: 500 }, (_, i) => page(i, big)); // ~5 MB
  // Read as the store hands them over: batches of 160 pages, the later ones only counted.
  let batchesRead = 0;
  async function* batches() {
    for (let i = 0; i < results.length; i += 160) {
      batchesRead++;
      yield results.slice(i, i + 160);
    }
  }
  const out = await boundedResults(batches());
  assert.equal(batchesRead, 4);
  assert.equal(out.results_truncated, true);
  assert.equal(out.results_total, 500);
  assert.ok(out.results.length > 50 && out.results.length < 100, String(out.results.length));
  assert.ok(Buffer.byteLength(JSON.stringify(out.results)) <= WEBHOOK_RESULTS_MAX_BYTES);
  assert.deepEqual(
    out.results.map((r) => r.id),
    results.slice(0, out.results.length).map((r) => r.id),
  );
});
