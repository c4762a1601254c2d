// The browser pool's page semaphore: bounded holders, order, fairness between tenants, abort while waiting,
// refusal on close.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PageSlots } from '../../activities/fetching/browser/page-slots.js';

test('holders are bounded and the slot passes to waiters in order', async () => {
  const slots = new PageSlots(2);
  await slots.acquire();
  await slots.acquire();
  const order: number[] = [];
  const third = slots.acquire().then(() => order.push(3));
  const fourth = slots.acquire().then(() => order.push(4));
  assert.deepEqual([slots.active, slots.waiting], [2, 2]);
  slots.release('');
  await third;
  slots.release('');
  await fourth;
  assert.deepEqual(order, [3, 4]);
  slots.release('');
  slots.release('');
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

test('a freed page goes to the waiting tenant holding the fewest, not to the tenant that holds them all', async () => {
  const slots = new PageSlots(2, 0.5);
  // Alone, a tenant may use every page.
  const a1 = await slots.acquire(undefined, 'a');
  const a2 = await slots.acquire(undefined, 'a');
  assert.equal(slots.heldBy('a'), 2);
  const order: string[] = [];
  const a3 = slots.acquire(undefined, 'a').then((t) => order.push(t));
  const a4 = slots.acquire(undefined, 'a').then((t) => order.push(t));
  const b1 = slots.acquire(undefined, 'b').then((t) => order.push(t));
  slots.release(a1);
  await b1;
  assert.deepEqual(order, ['b'], 'b, waiting last, gets the first page freed');
  assert.deepEqual([slots.heldBy('a'), slots.heldBy('b')], [1, 1]);
  slots.release(a2);
  await a3;
  slots.release('b');
  await a4;
  assert.deepEqual(order, ['b', 'a', 'a']);
});

test('a tenant over its share waits while another tenant waits, even with a page free', async () => {
  const slots = new PageSlots(4, 0.5);
  for (let i = 0; i < 4; i++) await slots.acquire(undefined, 'a');
  const got: string[] = [];
  const b = slots.acquire(undefined, 'b').then((t) => got.push(t));
  const a = slots.acquire(undefined, 'a').then((t) => got.push(t));
  slots.release('a');
  await b;
  assert.deepEqual(got, ['b']);
  slots.release('a');
  await a;
  assert.deepEqual(got, ['b', 'a']);
});
