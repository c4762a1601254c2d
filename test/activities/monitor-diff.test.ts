// The comparison of two monitor runs: records by page URL or by key_field, field by field, bounded.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { diffRuns, hasChanges, type RunPage } from '../../activities/monitor-diff.js';
import { MAX_CHANGES_PER_RUN } from '../../shared/schemas/monitors.js';

const page = (url: string, data: unknown, status = 'completed'): RunPage => ({ url, status, data });
/** A run read as the store hands it over: one batch of pages, read again on each call. */
const run = (pages: RunPage[]) => () => [pages];

describe('diffRuns', () => {
  test('pages matched by URL: a changed field with its old and new value, nested fields by dotted path', async () => {
    const before = [page('https://s/a', { name: 'A', price: 10, stock: { count: 3 } })];
    const after = [page('https://s/a', { name: 'A', price: 12, stock: { count: 2 } })];
    const diff = await diffRuns(run(before), run(after), null);
    assert.deepEqual(diff.counts, { added: 0, removed: 0, changed: 1 });
    assert.deepEqual(diff.changed[0]?.fields, [
      { field: 'price', old: 10, new: 12 },
      { field: 'stock.count', old: 3, new: 2 },
    ]);
    assert.equal(hasChanges(await diffRuns(run(before), run(before), null)), false);
  });

  test('key_field: listing items matched by key across pages; added, removed and changed', async () => {
    const before = [
      page('https://s/p1', {
        items: [
          { sku: 'a', price: 1 },
          { sku: 'b', price: 2 },
        ],
      }),
    ];
    const after = [
      page('https://s/p1', { items: [{ sku: 'b', price: 3 }] }),
      page('https://s/p2', { items: [{ sku: 'c', price: 4 }] }),
    ];
    const diff = await diffRuns(run(before), run(after), 'sku');
    assert.deepEqual(diff.counts, { added: 1, removed: 1, changed: 1 });
    assert.equal(diff.added[0]?.key, 'c');
    assert.equal(diff.removed[0]?.key, 'a');
    assert.deepEqual(diff.changed[0], {
      key: 'b',
      url: 'https://s/p1',
      fields: [{ field: 'price', old: 2, new: 3 }],
    });
  });

  test('a page that failed in this run is not reported removed', async () => {
    const before = [page('https://s/a', { price: 1 }), page('https://s/b', { price: 2 })];
    const after = [page('https://s/a', { price: 1 }), page('https://s/b', null, 'failed')];
    assert.equal(hasChanges(await diffRuns(run(before), run(after), null)), false);
  });

  test(`at most ${MAX_CHANGES_PER_RUN} records listed, the rest counted; large values cut`, async () => {
    const items = (n: number, v: string) => Array.from({ length: n }, (_, i) => ({ sku: `k${i}`, v }));
    const diff = await diffRuns(
      run([page('https://s/l', { items: items(150, 'x') })]),
      run([page('https://s/l', { items: items(150, 'y'.repeat(5000)) })]),
      'sku',
    );
    assert.equal(diff.counts.changed, 150);
    assert.equal(diff.changed.length, MAX_CHANGES_PER_RUN);
    assert.equal(diff.omitted, 150 - MAX_CHANGES_PER_RUN);
    const value = diff.changed[0]?.fields[0]?.new as string;
    assert.ok(typeof value === 'string' && value.length <= 2001 && value.endsWith('…'));
  });

  test('runs read in batches: records matched across batches, the first of a key wins, key order and null leaves are no change', async () => {
    const before = [
      [page('https://s/1', { items: [{ sku: 'a', price: 1, note: null }] })],
      [
        page('https://s/2', {
          items: [
            { sku: 'b', price: 2 },
            { sku: 'a', price: 99 },
          ],
        }),
      ],
    ];
    const after = [
      [page('https://s/2', { items: [{ price: 1, sku: 'a' }] })],
      [
        page('https://s/1', { items: [{ sku: 'b', price: 3 }] }),
        page('https://s/3', { items: [{ sku: 'c' }] }),
      ],
    ];
    let reads = 0;
    const batches = (run: RunPage[][]) => () => {
      reads++;
      return run;
    };
    const diff = await diffRuns(batches(before), batches(after), 'sku');
    assert.deepEqual(diff.counts, { added: 1, removed: 0, changed: 1 });
    assert.deepEqual(diff.changed, [
      { key: 'b', url: 'https://s/1', fields: [{ field: 'price', old: 2, new: 3 }] },
    ]);
    assert.equal(diff.added[0]?.key, 'c');
    assert.equal(reads, 3, 'the previous run is read twice, this run once');
  });
});
