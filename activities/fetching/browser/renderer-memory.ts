// The memory a render really uses is its renderer process's, not only its script heap: typed arrays, images,
// workers and the DOM live outside V8's heap counters (dom-size-watch.ts reads those). While any render runs,
// every RENDERER_CHECK_MS the browser's renderer processes are listed (SystemInfo.getProcessInfo) and each one's
// resident anonymous and shared memory read from /proc; one past the budget is killed at once (SIGKILL; the
// worker may signal the browser's user). The protocol does not say which page a process holds, so the kill
// is recorded and a render whose page (or one of its frames) crashes after it ends with content_too_large.
// Each process is bounded alone: a render spread over several (cross-site frames) may hold one budget in each.
import { readFile } from 'node:fs/promises';
import type { Browser, CDPSession } from 'puppeteer-core';
import { scriptHeapBudget } from './dom-size-watch.js';
import { withTimeout } from './launch-browser.js';

export const RENDERER_CHECK_MS = 100;
/** Above the script heap budget: the renderer's own code, DOM, layout and buffers. */
export const RENDERER_MARGIN_BYTES = 128 * 1024 * 1024;
const CHECK_TIMEOUT_MS = 2_000;
const KILLS_KEPT = 20;

/** What one render's renderer process may hold: its script heap budget and a margin. */
export function rendererBudget(maxBytes: number): number {
  return scriptHeapBudget(maxBytes) + RENDERER_MARGIN_BYTES;
}

export interface RendererKill {
  pid: number;
  bytes: number;
  budget: number;
  at: number;
}

export class RendererMemory {
  /** Budgets of the renders running now. */
  private readonly budgets = new Map<symbol, number>();
  private readonly recent: RendererKill[] = [];
  private timer: NodeJS.Timeout | undefined;
  private checking = false;
  private stopped = false;

  private constructor(
    private readonly session: CDPSession,
    private readonly onKill?: (kill: RendererKill) => void,
  ) {}

  static async start(browser: Browser, onKill?: (kill: RendererKill) => void): Promise<RendererMemory> {
    return new RendererMemory(await browser.target().createCDPSession(), onKill);
  }

  /** Bounds the renderers while a render runs; the returned function ends it. */
  watch(budget: number): () => void {
    const key = Symbol('render');
    this.budgets.set(key, budget);
    this.schedule();
    return () => {
      this.budgets.delete(key);
      if (this.budgets.size === 0) this.cancel();
    };
  }

  /** The latest renderer killed at `since` or later. */
  killedSince(since: number): RendererKill | undefined {
    return this.recent.findLast((kill) => kill.at >= since);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.budgets.clear();
    this.cancel();
    await this.session.detach().catch(() => undefined);
  }

  private schedule(): void {
    if (this.timer || this.checking || this.stopped || this.budgets.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.checking = true;
      void this.check()
        .catch(() => undefined) // the browser is going away; its renders fail on their own
        .finally(() => {
          this.checking = false;
          this.schedule();
        });
    }, RENDERER_CHECK_MS);
    this.timer.unref();
  }

  private cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async check(): Promise<void> {
    if (this.budgets.size === 0) return; // never a budget of -Infinity
    const budget = Math.max(...this.budgets.values());
    const { processInfo } = await withTimeout(
      this.session.send('SystemInfo.getProcessInfo'),
      CHECK_TIMEOUT_MS,
    );
    const renderers = processInfo.filter((p) => p.type === 'renderer').map((p) => p.id);
    const sizes = await Promise.all(renderers.map((pid) => residentBytes(pid)));
    for (const [i, bytes] of sizes.entries()) {
      const pid = renderers[i] as number;
      if (bytes > budget && (await isRenderer(pid))) this.kill({ pid, bytes, budget, at: Date.now() });
    }
  }

  private kill(kill: RendererKill): void {
    try {
      process.kill(kill.pid, 'SIGKILL');
    } catch {
      return; // gone already
    }
    this.recent.push(kill);
    if (this.recent.length > KILLS_KEPT) this.recent.shift();
    this.onKill?.(kill);
  }
}

/** RssAnon + RssShmem of a process (what it holds itself, files aside); 0 once it is gone. */
export async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return (kib('RssAnon') + kib('RssShmem')) * 1024;
}

/** Still a Chromium renderer (the id was not reused meanwhile). */
async function isRenderer(pid: number): Promise<boolean> {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return cmdline.includes('--type=renderer');
}
