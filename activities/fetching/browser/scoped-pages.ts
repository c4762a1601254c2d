// Pages kept open between renders of one isolation scope (a tenant, with or without one stored site session;
// render-page.ts names it). A new browser context and page cost a new renderer process: ~0.8 s of CPU a page on
// the 2-core machine, against ~0.1 s to load the next page in a kept one. Each scope has its own incognito
// context, so cookies, storage and cache never cross scopes; a page is only ever handed to its own scope again,
// and only for a render of the origin its document is on: a render of another origin gets a new page of the
// scope's context, so nothing a site's document left in its page (a frozen task, a frame, a name) meets another
// site's render. Idle pages are frozen (no timers or tasks run), at most `maxIdle` of them in all (the least
// recently used closes first), each for at most `idleMs`; a context closes with its last page.
import type { Browser, BrowserContext, CDPSession, Page } from 'puppeteer-core';
import { isolatedContext } from './launch-browser.js';
import { openPage } from './target-guard.js';

interface Scope {
  context: Promise<BrowserContext>;
  /** Pages of the context, idle or lent out. */
  open: number;
}

interface IdlePage {
  scope: string;
  /** The origin of the page's document. */
  origin: string;
  page: Page;
  since: number;
}

/** Each kept page's own CDP session, to freeze it while it waits. */
const sessions = new WeakMap<Page, CDPSession>();

export class ScopedPages {
  private readonly scopes = new Map<string, Scope>();
  /** Oldest first. */
  private idle: IdlePage[] = [];

  constructor(
    private readonly browser: Browser,
    private readonly maxIdle: number,
    private readonly idleMs: number,
  ) {}

  get idleCount(): number {
    return this.idle.length;
  }

  /** The scope's most recently used idle page on `origin`, or a new page in the scope's context. */
  async take(scope: string, origin: string): Promise<Page> {
    for (let at = this.lastIdle(scope, origin); at !== -1; at = this.lastIdle(scope, origin)) {
      const [{ page }] = this.idle.splice(at, 1) as [IdlePage];
      try {
        await sessions.get(page)?.send('Page.setWebLifecycleState', { state: 'active' });
        return page;
      } catch {
        await this.discard(scope, page).catch(() => undefined); // crashed meanwhile: a new one
      }
    }
    const entry = this.scopes.get(scope) ?? this.newScope(scope);
    entry.open += 1;
    let page: Page | undefined;
    try {
      page = await openPage(await entry.context);
      sessions.set(page, await page.createCDPSession());
      return page;
    } catch (err) {
      await page?.close().catch(() => undefined);
      await this.closed(scope);
      throw err;
    }
  }

  /**
   * A page that served its render well waits, frozen, for its scope's next render of the origin its document
   * is on; one on no origin (an error page, about:blank) is closed.
   */
  async give(scope: string, page: Page): Promise<void> {
    const origin = originOf(page.url());
    if (origin === undefined) return this.discard(scope, page);
    await sessions.get(page)?.send('Page.setWebLifecycleState', { state: 'frozen' });
    this.idle.push({ scope, origin, page, since: Date.now() });
    while (this.idle.length > this.maxIdle) await this.closeIdle(0);
  }

  /** Closes a page (one that failed, or one not to keep); its context goes with the scope's last page. */
  async discard(scope: string, page: Page): Promise<void> {
    try {
      await page.close();
    } finally {
      await this.closed(scope);
    }
  }

  /** Closes the pages idle for longer than idleMs. */
  async sweep(now = Date.now()): Promise<void> {
    while (this.idle[0] && now - this.idle[0].since > this.idleMs) await this.closeIdle(0);
  }

  private lastIdle(scope: string, origin: string): number {
    return this.idle.findLastIndex((p) => p.scope === scope && p.origin === origin);
  }

  private newScope(scope: string): Scope {
    const context = isolatedContext(this.browser);
    const entry: Scope = { context, open: 0 };
    this.scopes.set(scope, entry);
    return entry;
  }

  private async closeIdle(at: number): Promise<void> {
    const [gone] = this.idle.splice(at, 1);
    if (gone) await this.discard(gone.scope, gone.page);
  }

  private async closed(scope: string): Promise<void> {
    const entry = this.scopes.get(scope);
    if (!entry) return;
    entry.open -= 1;
    if (entry.open > 0) return;
    this.scopes.delete(scope);
    await (await entry.context.catch(() => undefined))?.close();
  }
}

/** The URL's origin; undefined for an opaque one (about:, data:, an error page). */
export function originOf(url: string): string | undefined {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}
