// The browser pool's page semaphore: bounded holders, order, abort while waiting, refusal on close.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PageSlots } from '../../activities/browser/page-slots.js';

test('holders are bounded and the slot passes to waiters in order', async () => {
  const slots = new PageSlots(2);
  await slots.acquire();
  await slots.acquire();
  const order: number[] = [];
  const third = slots.acquire().then(() => order.push(3));
  const fourth = slots.acquire().then(() => order.push(4));
  assert.deepEqual([slots.active, slots.waiting], [2, 2]);
  slots.release();
  await third;
  slots.release();
  await fourth;
  assert.deepEqual(order, [3, 4]);
  slots.release();
  slots.release();
  assert.deepEqual([slots.active, slots.waiting], [0, 0]);
});

test('a waiter can give up, and everyone waiting is refused on close', async () => {
  const slots = new PageSlots(1);
  await slots.acquire();
  const abort = new AbortController();
  const impatient = slots.acquire(abort.signal);
  const patient = slots.acquire();
  abort.abort();
  await assert.rejects(impatient, /aborted/);
  assert.equal(slots.waiting, 1);
  slots.rejectWaiting(new Error('closed'));
  await assert.rejects(patient, /closed/);
  await assert.rejects(slots.acquire(AbortSignal.abort()), /aborted/);
});
