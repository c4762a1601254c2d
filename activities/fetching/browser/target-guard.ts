// Browsing contexts a page opens by itself — popups and new windows (window.open, target=_blank, a form sent to
// a new window), prerendered pages, shared and service workers — would live outside the render: no request
// interception, no byte budget, no end with the render, and a popup keeps `window.opener` on the page that
// opened it, which a kept page carries into its scope's next render. None is needed to read a page, so none
// is let run. Chromium's popup blocker (on: launch-browser.ts drops puppeteer's --disable-popup-blocking)
// refuses window.open and target=_blank without a user gesture; what a gesture opens (a click action) is met
// here: the browser attaches to every new page and worker as it starts (waitForDebuggerOnStart), and a
// foreign one has every request refused and is closed at once, while the pool's own pages go on. A new page
// waits for this session before it loads anything; a worker is let go by puppeteer's own session at once, so
// it may start before its requests are refused (a shared worker's script came through the page's
// interception). A service worker's script is refused, so its registration fails and no worker answers a
// later render.
import type { Browser, CDPSession, Page, Protocol } from 'puppeteer-core';

export interface TargetGuard {
  /** Targets refused so far (popups, windows, workers). */
  readonly refused: number;
  stop(): Promise<void>;
}

export interface RefusedTarget {
  type: string;
  url: string;
  browserContextId?: string;
}

// Browser-level targets a page can start. Frames and dedicated workers are not among them: they belong to
// their page's target, whose interception and budget they share (page-traffic.ts).
const WATCHED = ['page', 'shared_worker', 'service_worker', 'shared_storage_worklet', 'auction_worklet'];

/** Attaches to every new page and worker of the browser and closes those the pool did not open. */
export async function guardTargets(
  browser: Browser,
  onRefused?: (target: RefusedTarget) => void,
): Promise<TargetGuard> {
  const session = await browser.target().createCDPSession();
  const connection = session.connection();
  let refused = 0;
  const onAttached = (event: Protocol.Target.AttachedToTargetEvent) => {
    const info = event.targetInfo;
    const child = connection?.session(event.sessionId);
    if (!isForeign(info)) {
      // One of the pool's pages: it runs as soon as it is let go.
      void child?.send('Runtime.runIfWaitingForDebugger').catch(() => undefined);
      void session.send('Target.detachFromTarget', { sessionId: event.sessionId }).catch(() => undefined);
      return;
    }
    refused += 1;
    // Sent before anything else, so that whatever the target does until it is gone is refused too.
    if (child) refuseAll(child);
    void session.send('Target.closeTarget', { targetId: info.targetId }).catch(() => undefined);
    onRefused?.({
      type: info.type,
      url: info.url,
      ...(info.browserContextId ? { browserContextId: info.browserContextId } : {}),
    });
  };
  session.on('Target.attachedToTarget', onAttached);
  try {
    await session.send('Target.setAutoAttach', {
      autoAttach: true,
      waitForDebuggerOnStart: true,
      flatten: true,
      filter: [...WATCHED.map((type) => ({ type })), { exclude: true }],
    });
  } catch (err) {
    session.off('Target.attachedToTarget', onAttached);
    await session.detach().catch(() => undefined);
    throw err;
  }
  return {
    get refused() {
      return refused;
    },
    async stop() {
      session.off('Target.attachedToTarget', onAttached);
      await session.detach().catch(() => undefined);
    },
  };
}

/**
 * Not one of the pool's pages: a page with an opener (the pool's pages are opened over the protocol, with
 * none), a page of another kind than a tab's own (a prerender), or a worker or worklet of the browser's.
 */
function isForeign(info: Protocol.Target.TargetInfo): boolean {
  if (info.type !== 'page') return true;
  return info.openerId !== undefined || info.subtype !== undefined;
}

/** Fails every request of the target from now on (its session goes with it when it is closed). */
function refuseAll(child: CDPSession): void {
  child.on('Fetch.requestPaused', (event: Protocol.Fetch.RequestPausedEvent) => {
    const failed = child.send('Fetch.failRequest', {
      requestId: event.requestId,
      errorReason: 'BlockedByClient',
    });
    void failed.catch(() => undefined);
  });
  void child.send('Fetch.enable', { patterns: [{ urlPattern: '*' }] }).catch(() => undefined);
}

/**
 * A new page of the context for a render. Its requests never go to a service worker (none should exist,
 * see above; this holds even for one that did).
 */
export async function openPage(context: { newPage(): Promise<Page> }): Promise<Page> {
  const page = await context.newPage();
  try {
    await page.setBypassServiceWorker(true);
    return page;
  } catch (err) {
    await page.close().catch(() => undefined);
    throw err;
  }
}
