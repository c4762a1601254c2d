// The document reader processes alone (activities/fetching/documents/reader-pool.ts): a document past the
// memory bound, past the time limit, or whose job is cancelled ends its child with the matching category, and
// the next document is read by a fresh one.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { createReaderPool, type ReaderPool } from '../../activities/fetching/documents/reader-pool.js';
import { CategorizedError } from '../../shared/errors.js';
import { lzwZeros, pdfWithStream } from '../support/document-bombs.js';

const MiB = 2 ** 20;
const LIMITS = { maxHtmlChars: MiB, maxUnzippedBytes: 10 * MiB };
const PRICE_LIST = readFileSync(new URL('../fixtures/documents/price-list.pdf', import.meta.url));
/** A page stream of 1 GiB of zeros in 400 KB of LZW codes: seconds of decoding, and memory past any bound. */
const BOMB = pdfWithStream('/Filter/LZW', lzwZeros(1024 * MiB));

const pools: ReaderPool[] = [];
const pool = (timeoutMs: number, memoryBytes: number) => {
  const made = createReaderPool({ size: 1, timeoutMs, memoryBytes });
  pools.push(made);
  return made;
};
after(() => Promise.all(pools.map((p) => p.close())));

const category = (name: string) => (err: unknown) => {
  assert.ok(err instanceof CategorizedError, String(err));
  assert.equal(err.category, name, err.message);
  return true;
};

test('a document past the memory bound is content_too_large; a fresh child reads the next', async () => {
  const readers = pool(60_000, 64 * MiB);
  await assert.rejects(
    readers.read({ body: BOMB, file: 'pdf', limits: LIMITS }),
    category('content_too_large'),
  );
  const next = await readers.read({ body: PRICE_LIST, file: 'pdf', limits: LIMITS });
  assert.match(next.html, /Copper kettle/);
});

/**
 * A pool whose child is started and warm, so that a time limit or a cancellation counts the reading only. The
 * warm-up read runs under a generous limit (a busy machine may take more than a short one to parse even a
 * small PDF the first time); the pool reads its options at each document, so the limit asked for holds from
 * the next one on.
 */
async function warmPool(timeoutMs: number): Promise<ReaderPool> {
  const options = { size: 1, timeoutMs: 60_000, memoryBytes: 512 * MiB };
  const readers = createReaderPool(options);
  pools.push(readers);
  await readers.read({ body: PRICE_LIST, file: 'pdf', limits: LIMITS });
  options.timeoutMs = timeoutMs;
  return readers;
}

test('a document past the time limit is processing_timeout', async () => {
  const readers = await warmPool(300);
  await assert.rejects(
    readers.read({ body: BOMB, file: 'pdf', limits: LIMITS }),
    category('processing_timeout'),
  );
});

test("a cancelled job's document stops at once with cancelled", async () => {
  const readers = await warmPool(60_000);
  const abort = new AbortController();
  const reading = readers.read({ body: BOMB, file: 'pdf', limits: LIMITS }, abort.signal);
  setTimeout(() => abort.abort(), 200);
  const started = Date.now();
  await assert.rejects(reading, category('cancelled'));
  assert.ok(Date.now() - started < 5_000, 'the reading went on after the cancellation');
});
