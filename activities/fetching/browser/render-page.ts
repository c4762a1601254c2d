// Dynamic mode: render the page in a pooled browser page and return the DOM after scripts ran. Every request
// the page makes goes through the filtering proxy (addresses); PageTraffic checks schemes, redirects, size
// and type as they happen, and the bytes downloaded in all; the DOM's size is measured while scripts run.
// Each failure ends the render at once, in its own category. A document (PDF, Office) is not rendered: its
// download is stopped and it is fetched statically instead (RenderOptions.fetchDocument). The renderer's
// own memory is bounded too (renderer-memory.ts): a page whose renderer was killed for it is content_too_large.
// A render without steps runs in a page kept for its scope (the tenant and its site session, if any) and the
// requested origin, and leaves it for that scope's next render of the origin it ended on; one with steps
// (actions, a login) gets a fresh context of its own. A render that broke a bound fails, so its page is not
// kept. A page its scripts took to another origin than the server answered from says so
// (FetchedDocument.crossOriginNavigation): it is not that URL's content.
import { createHash } from 'node:crypto';
import type { Dialog, HTTPResponse, Page } from 'puppeteer-core';
import { CategorizedError } from '../../../shared/errors.js';
import { checkUrl } from '../../../shared/net/address-policy.js';
import { ACTIONS_TOTAL_MS, type PageAction } from '../../../shared/schemas/actions.js';
import { currentTenant } from '../../common/tenant-share.js';
import { mayBeDocument } from '../documents/kinds.js';
import { mediaType } from '../fetch-static.js';
import { DOCUMENT_TYPES, type FetchedDocument, unsupportedContent } from '../page-document.js';
import type { BrowserPool, PageServices } from './browser-pool.js';
import { watchDomSize } from './dom-size-watch.js';
import { type FilteringProxy, REFUSAL_HEADER } from './filtering-proxy.js';
import { hostOf, navigationFailure, rendererTooLarge, tooLarge } from './navigation-errors.js';
import { runPageActions } from './page-actions.js';
import { scriptless } from './page-ready.js';
import { PageTraffic, skippedTypes } from './page-traffic.js';
import { type RendererMemory, rendererBudget } from './renderer-memory.js';
import { originOf } from './scoped-pages.js';
import type { Screenshot } from './screenshot.js';
import type { FetchSession } from './session-scope.js';

export interface RenderOptions {
  /** For the main document to arrive and parse (DOMContentLoaded). */
  timeoutMs: number;
  /** At most this long afterwards for scripts and their requests to settle (network idle). */
  waitMs: number;
  maxBytes: number;
  maxRedirects: number;
  signal?: AbortSignal;
  /** Fetches a document the browser would download (a PDF, an Office file) statically, to read it as HTML. */
  fetchDocument?: (url: string) => Promise<FetchedDocument>;
  /** Steps run in the page before it is read (page-actions.ts); they get ACTIONS_TOTAL_MS on top. */
  actions?: PageAction[];
  /** A stored site's session: its cookies and headers, for its origin only (session-scope.ts). */
  session?: FetchSession;
  /** Runs after the actions, in the page (a login recipe reads the cookies it left). */
  afterActions?: (page: Page) => Promise<void>;
}

const IDLE_MS = 500;
const GRACE_MS = 5_000;

export async function renderPage(
  pool: BrowserPool,
  url: string,
  opts: RenderOptions,
): Promise<FetchedDocument> {
  try {
    return await renderInPage(pool, url, opts);
  } catch (err) {
    // Outside the page and its render budget: the page slot is free again, and the document has its own limits.
    if (err instanceof DocumentDownload && opts.fetchDocument) return opts.fetchDocument(err.url);
    throw err;
  }
}

/** A main document that is a file the browser would download rather than show; its URL after redirects. */
class DocumentDownload extends CategorizedError {
  constructor(
    refusal: CategorizedError,
    readonly url: string,
  ) {
    super(refusal.category, refusal.message, refusal.retryable, refusal.details);
  }
}

/** The refusal of a main document's type, as a DocumentDownload when the type may be a document. */
function asDownload(err: CategorizedError, url: string): CategorizedError {
  const type = err.details?.contentType;
  const document = err.category === 'unsupported_content' && typeof type === 'string' && mayBeDocument(type);
  return document ? new DocumentDownload(err, url) : err;
}

/**
 * Who may share a kept page: one tenant, with one stored site session or none. The session's cookies live in
 * the context, so a different session (or its absence) is a different scope; so is every other tenant.
 */
export function renderScope(session: FetchSession | undefined, tenant = currentTenant()): string {
  const hash = createHash('sha256').update(JSON.stringify([tenant, session ?? null]));
  return hash.digest('base64url');
}

async function renderInPage(pool: BrowserPool, url: string, opts: RenderOptions): Promise<FetchedDocument> {
  const target = checkUrl(url);
  const render = async (page: Page, { proxy, memory }: PageServices) => {
    const budget = opts.timeoutMs + opts.waitMs + GRACE_MS + (opts.actions?.length ? ACTIONS_TOTAL_MS : 0);
    let timer: NodeJS.Timeout | undefined;
    let onAbort = () => {};
    // A page stuck in a script loop never answers page.content(); closing its context (withPage) ends it.
    // So does the activity's cancellation.
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(renderTimeout(target.host, budget)), budget);
      onAbort = () => reject(new CategorizedError('cancelled', 'the fetch was cancelled'));
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      if (opts.signal?.aborted) onAbort();
    });
    try {
      return await Promise.race([new Render(page, proxy, memory, opts).run(target.href), deadline]);
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  };
  // Steps may log in, type secrets or leave state a later page must not see: those pages start clean.
  const steps = Boolean(opts.actions?.length || opts.afterActions);
  return steps
    ? pool.withPage(render, opts.signal)
    : pool.withScopedPage(renderScope(opts.session), target.origin, render, opts.signal);
}

class Render {
  private failure: CategorizedError | undefined;
  private readonly traffic: PageTraffic;
  private readonly started = Date.now();
  /** Rejects with the first failure, so a doomed navigation is not waited out. */
  private readonly failed: Promise<never>;
  private rejectFailed: (err: CategorizedError) => void = () => {};

  constructor(
    private readonly page: Page,
    private readonly proxy: FilteringProxy,
    private readonly memory: RendererMemory,
    private readonly opts: RenderOptions,
  ) {
    this.failed = new Promise<never>((_, reject) => {
      this.rejectFailed = reject;
    });
    this.failed.catch(() => undefined); // raced below; never unhandled
    const screenshot = opts.actions?.some((a) => a.kind === 'screenshot') ?? false;
    this.traffic = new PageTraffic(
      page,
      { ...opts, skippedTypes: skippedTypes(screenshot) },
      {
        onFailure: (err) => this.fail(err),
        // A script that sent the page somewhere refused or unreachable leaves an error page, not the page.
        onNavigationFailed: (errorText) => this.fail(this.navigationError(new Error(errorText))),
        onChildCrashed: () => this.onCrashed(false),
      },
    );
  }

  async run(url: string): Promise<FetchedDocument> {
    this.page.setDefaultTimeout(this.opts.timeoutMs);
    // Leaving a page (for the next one in a kept page) is always allowed; other dialogs are dismissed.
    const onDialog = (dialog: Dialog) =>
      void (dialog.type() === 'beforeunload' ? dialog.accept() : dialog.dismiss()).catch(() => undefined);
    const onCrashed = () => this.onCrashed(true);
    this.page.on('dialog', onDialog);
    this.page.on('error', onCrashed); // puppeteer's name for the page's renderer going away
    const stopWatching = watchDomSize(this.page, this.opts.maxBytes, (err) => this.fail(err));
    const stopMemory = this.memory.watch(rendererBudget(this.opts.maxBytes));
    let doc: FetchedDocument;
    try {
      await this.traffic.start(url);
      doc = await this.load(url);
    } finally {
      stopMemory();
      stopWatching();
      this.page.off('dialog', onDialog);
      this.page.off('error', onCrashed);
      await this.traffic.stop(); // a failure here fails the render: its page is not kept
    }
    // A bound broken while the page was being read: what was read is not kept, and neither is the page.
    if (this.failure) throw this.failure;
    return doc;
  }

  private async load(url: string): Promise<FetchedDocument> {
    let response: HTTPResponse | null;
    try {
      const loading = this.page.goto(url, { waitUntil: 'domcontentloaded', timeout: this.opts.timeoutMs });
      loading.catch(() => undefined); // when the failure wins the race
      response = await Promise.race([loading, this.failed]);
    } catch (err) {
      throw this.failure ?? this.navigationError(err);
    }
    await Promise.race([this.settle(), this.failed]);
    if (this.page.url().startsWith('chrome-error:')) throw this.navigationError(new Error('net::ERR_FAILED'));
    const main = this.traffic.mainResponse ?? response;
    if (!main) throw new CategorizedError('fetch_error', `${hostOf(url)} produced no document`, true);
    return this.document(main);
  }

  private async document(main: HTTPResponse): Promise<FetchedDocument> {
    const headers = main.headers();
    const refused = headers[REFUSAL_HEADER];
    if (refused !== undefined) throw this.navigationError(new Error(`proxy refused (${refused})`));
    const status = main.status();
    if (status >= 590 && status <= 599) {
      // proxy-chain's own answers when it could not reach the site (594 refused, 595 reset, 599 other).
      const message = `${hostOf(main.url())} could not be reached (${status})`;
      throw new CategorizedError('fetch_error', message, true, { status });
    }
    const mime = mediaType(headers['content-type']) ?? 'text/html';
    if (status < 400 && !DOCUMENT_TYPES.includes(mime))
      throw asDownload(unsupportedContent(mime), main.url());
    const shots: Screenshot[] = [];
    const actions =
      this.opts.actions?.length && mime !== 'text/plain'
        ? await runPageActions(this.page, this.opts.actions ?? [], this.failed, shots)
        : undefined;
    if (this.opts.afterActions) await Promise.race([this.opts.afterActions(this.page), this.failed]);
    const reading =
      mime === 'text/plain'
        ? this.page.evaluate(() => document.body?.textContent ?? '')
        : this.page.content();
    reading.catch(() => undefined); // when the failure wins the race
    const body = await Promise.race([reading, this.failed]);
    const bytes = Buffer.byteLength(body);
    if (bytes > this.opts.maxBytes) throw tooLarge(this.opts.maxBytes, { renderedBytes: bytes });
    const finalUrl = this.page.url();
    return {
      url: finalUrl,
      status,
      headers,
      contentType: mime,
      body,
      bytes,
      ...(actions ? { actions } : {}),
      ...(shots.length ? { screenshots: shots } : {}),
      ...(this.leftOrigin(finalUrl) ? { crossOriginNavigation: true as const } : {}),
    };
  }

  /**
   * Lets scripts fetch and render: waits for the network to go quiet, within the wait budget. A page that runs
   * no script (page-ready.ts) is complete once parsed, so it is read at once.
   */
  private async settle(): Promise<void> {
    const left = this.opts.timeoutMs + this.opts.waitMs - (Date.now() - this.started);
    const timeout = Math.max(0, Math.min(this.opts.waitMs, left));
    if (timeout === 0 || this.failure) return;
    const until = Date.now() + timeout;
    if (await scriptless(this.page)) return;
    const rest = Math.max(0, until - Date.now());
    await this.page.waitForNetworkIdle({ idleTime: IDLE_MS, timeout: rest }).catch(() => undefined);
  }

  private navigationError(err: unknown): CategorizedError {
    const url = this.traffic.mainUrl;
    const refusal = this.proxy.refusalFor(url);
    return navigationFailure(err, { url, timeoutMs: this.opts.timeoutMs, refusal });
  }

  /** The page ended on another origin than the server's answer to the requested URL came from. */
  private leftOrigin(finalUrl: string): boolean {
    const served = this.traffic.servedUrl ?? this.traffic.mainResponse?.url();
    return served === undefined || originOf(finalUrl) !== originOf(served);
  }

  /**
   * The page's renderer (`main`) or a child frame's went away. Killed for its memory since the render began:
   * the page was too large. Otherwise a frame's crash leaves the page readable, and the page's does not.
   */
  private onCrashed(main: boolean): void {
    const kill = this.memory.killedSince(this.started);
    if (kill) this.fail(rendererTooLarge(kill.budget, kill.bytes));
    else if (main) this.fail(this.navigationError(new Error('Page crashed!')));
  }

  /** Keeps the first reason the page is unusable and ends the render with it. */
  private fail(err: CategorizedError): void {
    if (this.failure) return;
    this.failure = asDownload(err, this.traffic.mainUrl);
    this.rejectFailed(this.failure);
  }
}

function renderTimeout(host: string, ms: number): CategorizedError {
  return new CategorizedError('fetch_timeout', `${host} did not finish rendering within ${ms} ms`, true, {
    timeoutMs: ms,
  });
}
