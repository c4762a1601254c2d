// One headless Chromium owned by the worker, lent out one isolated page at a time. A bounded number of pages
// run at once. withPage gives a page in its own incognito context, closed after use; withScopedPage a page of
// the caller's isolation scope, kept for that scope's next page (scoped-pages.ts: a new context and page cost
// a renderer process each). The browser is replaced when it dies and after a number of pages (to bound
// leaks), and closed with the worker. All its traffic goes through the filtering proxy, which the pool starts
// with the first browser and stops when it closes. Each browser is guarded from its launch: pages and workers
// a page opens by itself are closed before they run (target-guard.ts), and a renderer past its memory budget
// is killed while a render runs (renderer-memory.ts).
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'puppeteer-core';
import type { Config } from '../../../shared/config.js';
import { CategorizedError } from '../../../shared/errors.js';
import type { AddressPolicy, LookupFn } from '../../../shared/net/address-policy.js';
import { type FilteringProxy, type ProxyDecision, startFilteringProxy } from './filtering-proxy.js';
import {
  isolatedContext,
  killProcessGroup,
  launchBrowser,
  stopBrowser,
  withTimeout,
} from './launch-browser.js';
import { PageSlots } from './page-slots.js';
import { RendererMemory } from './renderer-memory.js';
import { ScopedPages } from './scoped-pages.js';
import { guardTargets, openPage, type TargetGuard } from './target-guard.js';

export interface BrowserPoolOptions {
  executablePath: string;
  /** Pages open at once; further callers wait their turn. */
  maxPages: number;
  /** The fraction of the pages one tenant may hold while another tenant waits (default: all). */
  tenantShare?: number;
  /** Pages one browser serves before it is replaced. */
  recycleAfter: number;
  policy: AddressPolicy;
  /** Name resolution for the proxy (tests). */
  lookup?: LookupFn;
  /** Sees each of the proxy's decisions (logs, tests). */
  onProxyDecision?: (decision: ProxyDecision) => void;
  launchTimeoutMs?: number;
  /** How long a scope's kept page may wait for its next render before it is closed (default 30 s; 0: none kept). */
  idlePageMs?: number;
}

export interface PoolStats {
  launches: number;
  pagesServed: number;
  activePages: number;
  /** Kept pages waiting for their scope's next render. */
  idlePages: number;
  waiting: number;
  /** Process ids of the browsers still running (each leads its own process group). */
  browserPids: number[];
  /** Popups, windows and workers pages opened by themselves, closed before they ran. */
  refusedTargets: number;
  /** Renderer processes killed past their memory budget. */
  rendererKills: number;
}

/** What a lent page comes with: the proxy its traffic goes through, and its renderer's memory bound. */
export interface PageServices {
  proxy: FilteringProxy;
  memory: RendererMemory;
}

type PageFn<T> = (page: Page, services: PageServices) => Promise<T>;

const CLOSE_TIMEOUT_MS = 5_000;
const IDLE_PAGE_MS = 30_000;

interface Generation {
  browser: Browser;
  /** Kept pages by scope (their contexts close with the browser). */
  pages: ScopedPages;
  guard: TargetGuard;
  memory: RendererMemory;
  served: number;
  active: number;
  retiring: boolean;
}

export class BrowserPool {
  private current: Generation | undefined;
  private launching: Promise<Generation> | undefined;
  private proxyStart: Promise<FilteringProxy> | undefined;
  private readonly generations = new Set<Generation>();
  /** Browsers being closed (retired ones close in the background); close() waits for them too. */
  private readonly stopping = new Set<Promise<void>>();
  private readonly slots: PageSlots;
  private closed = false;
  private launches = 0;
  private pagesServed = 0;
  private refusedTargets = 0;
  private rendererKills = 0;
  /** Closes the current browser's kept pages that waited too long. */
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly opts: BrowserPoolOptions) {
    this.slots = new PageSlots(opts.maxPages, opts.tenantShare);
  }

  /** Runs fn with a fresh page in its own browser context; the context is closed afterwards, whatever fn did. */
  async withPage<T>(fn: PageFn<T>, signal?: AbortSignal): Promise<T> {
    return this.lend(async (gen, proxy) => {
      const context = await isolatedContext(gen.browser);
      try {
        const page = await openPage(context);
        return await fn(page, { proxy, memory: gen.memory });
      } finally {
        // A browser that cannot close a context is not trusted with another page.
        await withTimeout(context.close(), CLOSE_TIMEOUT_MS).catch(() => this.retire(gen));
      }
    }, signal);
  }

  /**
   * Runs fn with a page of `scope`'s own context: one kept from the scope's last render of `origin`, or a new
   * one. When fn succeeds the page is kept for the scope's next render of the origin it is on; when it fails
   * the page is closed. Only pages that nobody else may see into go through here: a scope is one tenant and
   * one site session (render-page.ts).
   */
  async withScopedPage<T>(scope: string, origin: string, fn: PageFn<T>, signal?: AbortSignal): Promise<T> {
    if (this.opts.idlePageMs === 0) return this.withPage(fn, signal);
    return this.lend(async (gen, proxy) => {
      const page = await gen.pages.take(scope, origin);
      let result: T;
      try {
        result = await fn(page, { proxy, memory: gen.memory });
      } catch (err) {
        await withTimeout(gen.pages.discard(scope, page), CLOSE_TIMEOUT_MS).catch(() => this.retire(gen));
        throw err;
      }
      const keep = gen.retiring ? gen.pages.discard(scope, page) : gen.pages.give(scope, page);
      await withTimeout(keep, CLOSE_TIMEOUT_MS).catch(() => this.retire(gen));
      return result;
    }, signal);
  }

  /** A page slot (fair between tenants) and the current browser for fn; retires the browser when it is due. */
  private async lend<T>(
    fn: (gen: Generation, proxy: FilteringProxy) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    if (this.closed) throw closedError();
    const tenant = await this.slots.acquire(signal);
    try {
      const proxy = await this.proxy();
      const gen = await this.generation();
      gen.active += 1;
      gen.served += 1;
      this.pagesServed += 1;
      if (gen.served >= this.opts.recycleAfter) this.retire(gen);
      try {
        return await fn(gen, proxy);
      } finally {
        gen.active -= 1;
        if (gen.retiring && gen.active === 0) void this.shutdown(gen);
      }
    } finally {
      this.slots.release(tenant);
    }
  }

  stats(): PoolStats {
    const pids = [...this.generations].map((g) => g.browser.process()?.pid);
    return {
      launches: this.launches,
      pagesServed: this.pagesServed,
      activePages: this.slots.active,
      idlePages: this.current?.pages.idleCount ?? 0,
      waiting: this.slots.waiting,
      browserPids: pids.filter((pid): pid is number => pid !== undefined),
      refusedTargets: this.refusedTargets,
      rendererKills: this.rendererKills,
    };
  }

  /** Closes every browser and the proxy; callers still waiting for a page are refused. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    this.slots.rejectWaiting(closedError());
    await this.launching?.catch(() => undefined);
    this.current = undefined;
    await Promise.all([...this.generations].map((gen) => this.shutdown(gen)));
    await Promise.all(this.stopping);
    const proxy = await this.proxyStart?.catch(() => undefined);
    this.proxyStart = undefined;
    await proxy?.close();
  }

  // ---- Browsers ------------------------------------------------------------------------------------------

  private async generation(): Promise<Generation> {
    if (this.closed) throw closedError();
    if (this.current?.browser.connected && !this.current.retiring) return this.current;
    this.launching ??= this.launch().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  private async launch(): Promise<Generation> {
    const proxy = await this.proxy();
    const browser = await launchBrowser(
      this.opts.executablePath,
      proxy.url,
      this.opts.launchTimeoutMs ?? 30_000,
    );
    let guard: TargetGuard;
    let memory: RendererMemory;
    try {
      guard = await guardTargets(browser, () => {
        this.refusedTargets += 1;
      });
      memory = await RendererMemory.start(browser, () => {
        this.rendererKills += 1;
      });
    } catch (err) {
      await stopBrowser(browser);
      throw new CategorizedError('fetch_error', `the browser could not be guarded: ${String(err)}`, true, {
        reason: 'browser_unavailable',
      });
    }
    const idleMs = this.opts.idlePageMs ?? IDLE_PAGE_MS;
    const pages = new ScopedPages(browser, this.opts.maxPages, idleMs);
    const gen: Generation = { browser, pages, guard, memory, served: 0, active: 0, retiring: false };
    this.launches += 1;
    this.generations.add(gen);
    browser.once('disconnected', () => {
      // Died or closed: forget it; the next page launches a new one. A browser whose connection dropped
      // while its process lives on would be out of reach of close(): its process group goes now.
      if (this.current === gen) this.current = undefined;
      this.generations.delete(gen);
      void memory.stop();
      killProcessGroup(browser.process());
    });
    if (this.closed) {
      await this.shutdown(gen);
      throw closedError();
    }
    this.current = gen;
    if (idleMs > 0)
      this.sweeper ??= setInterval(() => {
        void this.current?.pages.sweep().catch(() => undefined);
      }, idleMs).unref();
    return gen;
  }

  /** No new pages on this browser; it closes once its last lent page is back (shutdown). */
  private retire(gen: Generation): void {
    gen.retiring = true;
    if (this.current === gen) this.current = undefined;
  }

  private async shutdown(gen: Generation): Promise<void> {
    this.retire(gen);
    this.generations.delete(gen);
    // Their sessions end with the browser; the memory checks stop now.
    void gen.memory.stop();
    void gen.guard.stop();
    const stopped = stopBrowser(gen.browser);
    this.stopping.add(stopped);
    await stopped.finally(() => this.stopping.delete(stopped));
  }

  private proxy(): Promise<FilteringProxy> {
    this.proxyStart ??= startFilteringProxy({
      policy: this.opts.policy,
      lookup: this.opts.lookup,
      onDecision: this.opts.onProxyDecision,
    });
    return this.proxyStart;
  }
}

/** The worker's pool, or none when the configured Chromium is not installed (no dynamic mode then). */
export function createBrowserPool(config: Config): BrowserPool | undefined {
  if (!existsSync(config.CHROMIUM_PATH)) return undefined;
  return new BrowserPool({
    executablePath: config.CHROMIUM_PATH,
    maxPages: config.BROWSER_MAX_PAGES,
    tenantShare: config.TENANT_MAX_SHARE,
    recycleAfter: config.BROWSER_RECYCLE_AFTER,
    idlePageMs: config.BROWSER_PAGE_IDLE_MS,
    policy: { allowPrivate: config.ALLOW_PRIVATE_ADDRESSES },
  });
}

function closedError(): CategorizedError {
  return new CategorizedError('fetch_error', 'the browser pool is closed (the worker is stopping)', true, {
    reason: 'browser_closed',
  });
}
