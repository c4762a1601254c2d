// The worker's browser pool against the real Chromium: bounded pages, recycling, recovery from a dead
// browser, and no process left behind once it closes.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { BrowserPool } from '../../activities/fetching/browser/browser-pool.js';
import { CategorizedError } from '../../shared/errors.js';
import { type FixtureSite, html, startFixtureSite } from '../support/fixture-site.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}`;
const LOCAL = { allowPrivate: true }; // the fixture site is on loopback

let site: FixtureSite;
before(async () => {
  site = await startFixtureSite();
  site.route('/', html('Pool', '<h1>Pool page</h1>'));
});
after(() => site.close());

interface Proc {
  pid: number;
  ppid: number;
  state: string;
}

/** Processes in a process group, from /proc (the browser leads its own group). */
function processGroup(pgid: number): Proc[] {
  const found: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid)
      found.push({ pid: Number(entry), state: fields[0]!, ppid: Number(fields[1]) });
  }
  return found;
}

/** Waits until nothing of the group runs; exited children of other parents are those parents' to reap. */
async function assertGroupGone(pgid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  let left = processGroup(pgid);
  while (Date.now() < deadline) {
    left = processGroup(pgid);
    if (left.every((p) => p.state === 'Z' && p.ppid !== process.pid)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual(left, [], `processes of browser ${pgid} still running`);
}

const visit = (pool: BrowserPool) =>
  pool.withPage(async (page) => {
    await page.goto(`${site.url}/`);
    return page.$eval('h1', (h) => h.textContent);
  });

describe('browser pool', { skip }, () => {
  test('never runs more pages than its bound, and closes each page after use', async () => {
    const pool = new BrowserPool({ executablePath: CHROMIUM, maxPages: 2, recycleAfter: 100, policy: LOCAL });
    try {
      let running = 0;
      let peak = 0;
      const jobs = Array.from({ length: 5 }, () =>
        pool.withPage(async (page) => {
          running += 1;
          peak = Math.max(peak, running);
          // The first page is held until a second one runs beside it (a busy machine may take longer than
          // any fixed wait to open the second), so the peak shows the bound, not the machine's speed.
          const until = Date.now() + 15_000;
          while (peak < 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
          await new Promise((resolve) => setTimeout(resolve, 200));
          running -= 1;
          return page;
        }),
      );
      const pages = await Promise.all(jobs);
      assert.equal(peak, 2);
      assert.ok(pages.every((page) => page.isClosed()));
      const stats = pool.stats();
      assert.deepEqual([stats.launches, stats.pagesServed, stats.activePages, stats.waiting], [1, 5, 0, 0]);
      assert.equal(await visit(pool), 'Pool page');
    } finally {
      await pool.close();
    }
  });

  test('replaces the browser after N pages and closes the old one', async () => {
    const pool = new BrowserPool({ executablePath: CHROMIUM, maxPages: 1, recycleAfter: 2, policy: LOCAL });
    try {
      await visit(pool);
      const first = pool.stats().browserPids[0]!;
      await visit(pool); // the second page retires the first browser
      await visit(pool);
      const stats = pool.stats();
      assert.equal(stats.launches, 2);
      assert.ok(!stats.browserPids.includes(first));
      await assertGroupGone(first);
    } finally {
      await pool.close();
    }
  });

  test('a browser that died is replaced on the next page', async () => {
    const pool = new BrowserPool({ executablePath: CHROMIUM, maxPages: 1, recycleAfter: 100, policy: LOCAL });
    try {
      await visit(pool);
      const [pid] = pool.stats().browserPids;
      process.kill(-pid!, 'SIGKILL');
      await assertGroupGone(pid!);
      assert.equal(await visit(pool), 'Pool page');
      assert.equal(pool.stats().launches, 2);
    } finally {
      await pool.close();
    }
  });

  test('close() leaves no browser process and refuses later callers', async () => {
    const pool = new BrowserPool({ executablePath: CHROMIUM, maxPages: 1, recycleAfter: 100, policy: LOCAL });
    await visit(pool);
    // A caller waiting for the only page when the pool closes is refused, not left hanging.
    let release = () => {};
    const holding = pool.withPage(() => new Promise<void>((resolve) => (release = resolve)));
    const waiting = pool.withPage(async () => 'never');
    const pids = pool.stats().browserPids;
    assert.equal(pids.length, 1);
    const closing = pool.close();
    await assert.rejects(
      waiting,
      (err: unknown) => err instanceof CategorizedError && err.category === 'fetch_error',
    );
    release();
    await holding.catch(() => undefined);
    await closing;
    await assertGroupGone(pids[0]!);
    assert.deepEqual(pool.stats().browserPids, []);
    await assert.rejects(visit(pool), /closed/);
    await pool.close(); // idempotent
  });
});
