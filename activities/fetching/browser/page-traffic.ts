// Watches one page's traffic while it renders: intercepts every request (refusing other schemes, what the
// reading does not need, and bad redirects of the main document), follows the main document's responses, and
// counts its bytes as they arrive, reporting the first reason the page is unusable so the render can stop at
// once. The page's child targets — cross-site frames, dedicated workers, theirs in turn — are intercepted with
// it (puppeteer attaches to them) and attached here before they run, so their bytes count in the same budget
// and their crash is seen. stop() removes all of it from the page, which may be kept for its scope's next
// render.
import type { CDPSession, HTTPRequest, HTTPResponse, Page, Protocol } from 'puppeteer-core';
import type { CategorizedError } from '../../../shared/errors.js';
import { mediaType } from '../fetch-static.js';
import { DOCUMENT_TYPES, unsupportedContent } from '../page-document.js';
import {
  isAllowedScheme,
  redirectRefusal,
  tooLarge,
  transferTooLarge,
  withoutHash,
} from './navigation-errors.js';
import { browserHeadersFor, type FetchSession } from './session-scope.js';

export interface TrafficLimits {
  maxBytes: number;
  maxRedirects: number;
  /** A stored site's session: its headers and cookies go on the site's own requests only (session-scope.ts). */
  session?: FetchSession;
  /** Resource types refused (default: media; see skippedTypes). */
  skippedTypes?: ReadonlySet<string>;
}

/** What a page may download in all while it renders (document, scripts, images, fetches): 4 × maxBytes. */
export const TRANSFER_BUDGET_FACTOR = 4;

export interface TrafficEvents {
  /** The first reason the page is unusable; loading has been stopped. */
  onFailure: (err: CategorizedError) => void;
  /** A main-document request failed after a document had loaded (a script navigated away). */
  onNavigationFailed: (errorText: string) => void;
  /** The process of one of the page's child targets (a cross-site frame) died. */
  onChildCrashed: () => void;
}

// Not needed to read a page, and the heaviest downloads: audio and video always; images and fonts too unless
// the page is to be seen (a screenshot), which they draw.
const MEDIA = new Set(['media']);
const ASSETS = new Set(['media', 'image', 'font']);

/** What a render refuses: images and fonts as well as media, unless one of its steps takes a screenshot. */
export function skippedTypes(willScreenshot: boolean): ReadonlySet<string> {
  return willScreenshot ? MEDIA : ASSETS;
}

export class PageTraffic {
  /** The URL the main document was last requested from (the last redirect hop). */
  mainUrl = '';
  /** The main document's latest final (non-redirect) response. */
  mainResponse: HTTPResponse | undefined;
  /**
   * Where the server's answer to `requestedUrl` came from, after its own redirects: the first final response
   * of a main-document request chain that began there (a later one is a script's or a meta refresh's).
   */
  servedUrl: string | undefined;
  private requestedUrl = '';
  private session: CDPSession | undefined;
  /** Sessions of the page's child targets, attached through `session`. */
  private readonly children = new Set<CDPSession>();
  private documentRequestId: string | undefined;
  private documentBytes = 0;
  private transferBytes = 0;
  private failed = false;
  private readonly listeners = {
    request: (req: HTTPRequest) => this.onRequest(req),
    response: (res: HTTPResponse) => this.onResponse(res),
    requestfailed: (req: HTTPRequest) => this.onRequestFailed(req),
    childAttached: (child: CDPSession) => this.onChildAttached(child),
    received: (e: Protocol.Network.DataReceivedEvent) => this.onDataReceived(e, true),
    childReceived: (e: Protocol.Network.DataReceivedEvent) => this.onDataReceived(e, false),
    childCrashed: () => {
      if (!this.failed) this.events.onChildCrashed();
    },
  };

  constructor(
    private readonly page: Page,
    private readonly limits: TrafficLimits,
    private readonly events: TrafficEvents,
  ) {}

  /** `url`: the URL the render asks for (its main document's first request). */
  async start(url: string): Promise<void> {
    this.mainUrl = url;
    this.requestedUrl = withoutHash(url);
    const page = this.page;
    page.on('request', this.listeners.request);
    page.on('response', this.listeners.response);
    page.on('requestfailed', this.listeners.requestfailed);
    await page.setRequestInterception(true);
    // Chromium downloads a document whole; counting its bytes as they arrive lets an oversized one be stopped.
    const session = await page.createCDPSession();
    this.session = session;
    const { frameTree } = await session.send('Page.getFrameTree');
    await session.send('Network.enable');
    session.on('Network.requestWillBeSent', (e) => {
      if (e.type !== 'Document' || e.frameId !== frameTree.frame.id) return;
      if (e.requestId !== this.documentRequestId) this.documentBytes = 0;
      this.documentRequestId = e.requestId;
    });
    // Every response's bytes count towards the page's transfer budget as they arrive: a page that downloads
    // without end (a huge resource, a stream of fetches) is stopped while it downloads.
    session.on('Network.dataReceived', this.listeners.received);
    await this.attachChildren(session);
  }

  /** Leaves the page as it was given: no listeners, no session of its own (requests stay intercepted). */
  async stop(): Promise<void> {
    this.failed = true; // nothing more to report
    this.page.off('request', this.listeners.request);
    this.page.off('response', this.listeners.response);
    this.page.off('requestfailed', this.listeners.requestfailed);
    const children = [...this.children];
    this.children.clear();
    for (const child of children) this.forget(child);
    await Promise.all(children.map((child) => child.detach().catch(() => undefined))); // gone with their target
    if (this.session) this.forget(this.session);
    await this.session?.detach();
  }

  /** Attaches to the session's child targets as they start, each paused until it is counted (below). */
  private async attachChildren(session: CDPSession): Promise<void> {
    session.on('sessionattached', this.listeners.childAttached);
    await session.send('Target.setAutoAttach', {
      autoAttach: true,
      waitForDebuggerOnStart: true,
      flatten: true,
    });
  }

  private onChildAttached(child: CDPSession): void {
    if (this.failed) {
      void child.send('Runtime.runIfWaitingForDebugger').catch(() => undefined);
      return;
    }
    this.children.add(child);
    child.on('Network.dataReceived', this.listeners.childReceived);
    child.on('Inspector.targetCrashed', this.listeners.childCrashed);
    // A worker has no Inspector domain; whatever a target lacks, it runs once the rest is on.
    void Promise.allSettled([
      child.send('Network.enable'),
      child.send('Inspector.enable'),
      this.attachChildren(child),
    ]).then(() => child.send('Runtime.runIfWaitingForDebugger').catch(() => undefined));
  }

  private forget(session: CDPSession): void {
    session.off('Network.dataReceived', this.listeners.received);
    session.off('Network.dataReceived', this.listeners.childReceived);
    session.off('Inspector.targetCrashed', this.listeners.childCrashed);
    session.off('sessionattached', this.listeners.childAttached);
  }

  /** `own`: the page's own target, where the main document arrives (request ids are per target). */
  private onDataReceived(e: Protocol.Network.DataReceivedEvent, own: boolean): void {
    const transferBudget = this.limits.maxBytes * TRANSFER_BUDGET_FACTOR;
    this.transferBytes += e.dataLength;
    if (this.transferBytes > transferBudget) {
      this.fail(transferTooLarge(transferBudget, this.transferBytes));
    }
    if (!own || e.requestId !== this.documentRequestId) return;
    this.documentBytes += e.dataLength;
    if (this.documentBytes > this.limits.maxBytes) {
      this.fail(tooLarge(this.limits.maxBytes, { receivedBytes: this.documentBytes }));
    }
  }

  private isMainDocument(req: HTTPRequest): boolean {
    return req.isNavigationRequest() && req.frame() === this.page.mainFrame();
  }

  private onRequest(req: HTTPRequest): void {
    if (req.isInterceptResolutionHandled()) return;
    let refused: boolean;
    if (this.isMainDocument(req)) {
      const chain = req.redirectChain().map((r) => r.url());
      const refusal = redirectRefusal(req.url(), chain, this.limits.maxRedirects);
      this.mainUrl = req.url();
      if (refusal) this.fail(refusal);
      refused = refusal !== null;
    } else {
      const skipped = this.limits.skippedTypes ?? MEDIA;
      refused = !isAllowedScheme(req.url()) || skipped.has(req.resourceType());
    }
    const headers = refused ? undefined : browserHeadersFor(this.limits.session, req);
    const settled = refused ? req.abort('blockedbyclient') : req.continue(headers ? { headers } : undefined);
    void settled.catch(() => undefined); // the page may be gone already
  }

  private onResponse(res: HTTPResponse): void {
    if (!this.isMainDocument(res.request()) || (res.status() >= 300 && res.status() < 400)) return;
    this.mainResponse = res;
    const request = res.request();
    const first = request.redirectChain()[0] ?? request;
    if (this.servedUrl === undefined && withoutHash(first.url()) === this.requestedUrl)
      this.servedUrl = res.url();
    const headers = res.headers();
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > this.limits.maxBytes) {
      this.fail(tooLarge(this.limits.maxBytes, { declaredBytes: declared }));
    }
    const mime = mediaType(headers['content-type']);
    if (res.status() < 400 && mime !== null && !DOCUMENT_TYPES.includes(mime)) {
      this.fail(unsupportedContent(mime));
    }
  }

  private onRequestFailed(req: HTTPRequest): void {
    if (this.isMainDocument(req) && this.mainResponse !== undefined) {
      this.events.onNavigationFailed(req.failure()?.errorText ?? 'net::ERR_FAILED');
    }
  }

  private fail(err: CategorizedError): void {
    if (this.failed) return;
    this.failed = true;
    this.events.onFailure(err);
    void this.session?.send('Page.stopLoading').catch(() => undefined);
  }
}
