// Watches one page's traffic while it renders: intercepts every request (refusing other schemes, media, and
// bad redirects of the main document), follows the main document's responses, and counts its bytes as they
// arrive, reporting the first reason the page is unusable so the render can stop at once.
import type { CDPSession, HTTPRequest, HTTPResponse, Page } from 'puppeteer-core';
import type { CategorizedError } from '../../shared/errors.js';
import { mediaType } from '../fetch-static.js';
import { DOCUMENT_TYPES, unsupportedContent } from '../page-document.js';
import { isAllowedScheme, redirectRefusal, tooLarge, transferTooLarge } from './navigation-errors.js';
import { browserHeadersFor, type FetchSession } from './session-scope.js';

export interface TrafficLimits {
  maxBytes: number;
  maxRedirects: number;
  /** A stored site's session: its headers go on requests to its host only. */
  session?: FetchSession;
}

/** What a page may download in all while it renders (document, scripts, images, fetches): 4 × maxBytes. */
export const TRANSFER_BUDGET_FACTOR = 4;

export interface TrafficEvents {
  /** The first reason the page is unusable; loading has been stopped. */
  onFailure: (err: CategorizedError) => void;
  /** A main-document request failed after a document had loaded (a script navigated away). */
  onNavigationFailed: (errorText: string) => void;
}

// Not needed to read a page, and the heaviest downloads.
const SKIPPED_TYPES = new Set(['media']);

export class PageTraffic {
  /** The URL the main document was last requested from (the last redirect hop). */
  mainUrl = '';
  /** The main document's latest final (non-redirect) response. */
  mainResponse: HTTPResponse | undefined;
  private session: CDPSession | undefined;
  private documentRequestId: string | undefined;
  private documentBytes = 0;
  private transferBytes = 0;
  private failed = false;

  constructor(
    private readonly page: Page,
    private readonly limits: TrafficLimits,
    private readonly events: TrafficEvents,
  ) {}

  async start(): Promise<void> {
    const page = this.page;
    page.on('request', (req) => this.onRequest(req));
    page.on('response', (res) => this.onResponse(res));
    page.on('requestfailed', (req) => this.onRequestFailed(req));
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
    const transferBudget = this.limits.maxBytes * TRANSFER_BUDGET_FACTOR;
    session.on('Network.dataReceived', (e) => {
      this.transferBytes += e.dataLength;
      if (this.transferBytes > transferBudget) {
        this.fail(transferTooLarge(transferBudget, this.transferBytes));
      }
      if (e.requestId !== this.documentRequestId) return;
      this.documentBytes += e.dataLength;
      if (this.documentBytes > this.limits.maxBytes) {
        this.fail(tooLarge(this.limits.maxBytes, { receivedBytes: this.documentBytes }));
      }
    });
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
      refused = !isAllowedScheme(req.url()) || SKIPPED_TYPES.has(req.resourceType());
    }
    const extra = refused ? undefined : browserHeadersFor(this.limits.session, req.url());
    const settled = refused
      ? req.abort('blockedbyclient')
      : req.continue(extra ? { headers: { ...req.headers(), ...extra } } : undefined);
    void settled.catch(() => undefined); // the page may be gone already
  }

  private onResponse(res: HTTPResponse): void {
    if (!this.isMainDocument(res.request()) || (res.status() >= 300 && res.status() < 400)) return;
    this.mainResponse = res;
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
