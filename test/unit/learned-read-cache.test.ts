import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ReadCache } from '../../activities/reading/learned/learner.js';

/** A read the test answers when it chooses, counting the reads sent. */
function reads() {
  const sent: { resolve: (v: string) => void; reject: (e: Error) => void }[] = [];
  const load = () =>
    new Promise<string>((resolve, reject) => {
      sent.push({ resolve, reject });
    });
  return { sent, load };
}

describe('the learner’s read cache', () => {
  test('pages asking while a read is out share it, and the answer is kept', async () => {
    const cache = new ReadCache<string>(() => true);
    const { sent, load } = reads();
    const asked = [cache.read('t', load), cache.read('t', load), cache.read('t', load)];
    assert.equal(sent.length, 1);
    sent[0]?.resolve('v1');
    assert.deepEqual(await Promise.all(asked), ['v1', 'v1', 'v1']);
    assert.equal(await cache.read('t', load), 'v1');
    assert.equal(sent.length, 1);
    // Another id is read on its own.
    const other = cache.read('u', load);
    assert.equal(sent.length, 2);
    sent[1]?.resolve('w');
    assert.equal(await other, 'w');
  });

  test('a value `keep` refuses is read again, but still shared while out', async () => {
    const cache = new ReadCache<string>((v) => v === 'verified');
    const { sent, load } = reads();
    const a = cache.read('t', load);
    const b = cache.read('t', load);
    sent[0]?.resolve('learning');
    assert.deepEqual(await Promise.all([a, b]), ['learning', 'learning']);
    const c = cache.read('t', load);
    assert.equal(sent.length, 2);
    sent[1]?.resolve('verified');
    assert.equal(await c, 'verified');
    assert.equal(await cache.read('t', load), 'verified');
    assert.equal(sent.length, 2);
  });

  test('after forget, a read sent before it is neither shared nor kept', async () => {
    const cache = new ReadCache<string>(() => true);
    const { sent, load } = reads();
    const before = cache.read('t', load);
    cache.forget('t');
    const after = cache.read('t', load);
    assert.equal(sent.length, 2);
    sent[1]?.resolve('new');
    sent[0]?.resolve('old');
    assert.equal(await before, 'old');
    assert.equal(await after, 'new');
    // The old answer, arriving last, did not replace the new one.
    assert.equal(await cache.read('t', load), 'new');
    assert.equal(sent.length, 2);
    // A kept value is dropped too.
    cache.forget('t');
    const again = cache.read('t', load);
    assert.equal(sent.length, 3);
    sent[2]?.resolve('newer');
    assert.equal(await again, 'newer');
  });

  test('a failed read reaches every page that shared it and is not kept', async () => {
    const cache = new ReadCache<string>(() => true);
    const { sent, load } = reads();
    const a = cache.read('t', load);
    const b = cache.read('t', load);
    sent[0]?.reject(new Error('down'));
    await assert.rejects(a, /down/);
    await assert.rejects(b, /down/);
    const c = cache.read('t', load);
    assert.equal(sent.length, 2);
    sent[1]?.resolve('v');
    assert.equal(await c, 'v');
  });
});
