// The fetchPage activity: fetch modes are a registry ({ static, dynamic }) and auto chooses between them.
// The body is stored and only its id returns to the workflow. makePageSource: the pages of extract and crawl
// jobs, fetched and kept in the page store, or taken from it (cache, re-extract, retry without a fetch).
import { CategorizedError } from '../../shared/errors.js';
import type { PageAction } from '../../shared/schemas/actions.js';
import type { FetchMode, ResolvedFetchMode } from '../../shared/schemas/common.js';
import type { StoredSource } from '../../shared/schemas/job-spec.js';
import type { NewPage } from '../../shared/store/pages.js';
import { ScreenshotStore } from '../../shared/store/screenshots.js';
import { currentActivity } from '../common/activity-context.js';
import { categorized } from '../common/failure.js';
import { renderPage } from './browser/render-page.js';
import { type FetchSession, staticOriginHeaders } from './browser/session-scope.js';
import type { ActivityDeps, FetchDeps } from './deps.js';
import { fetchStatic } from './fetch-static.js';
import type { FetchedPage } from './page-document.js';
import {
  type Assessment,
  assess,
  type FetchedDocument,
  refuseEmpty,
  refuseUnusable,
} from './page-document.js';
import { makeSiteSessions } from './site-session.js';

export interface FetchPageInput {
  jobId: string;
  url: string;
  fetchMode: FetchMode;
  contentId: string;
}

export interface FetchPageResult {
  contentId: string;
  finalUrl: string;
  statusCode: number;
  contentType: string;
  bytes: number;
  fetchMode: ResolvedFetchMode;
  fetchedAt: string;
  durationMs: number;
}

type Mode = ResolvedFetchMode;
/** `session`: a stored site's session, sent to its host only (browser/session-scope.ts). */
type Fetcher = (
  url: string,
  signal?: AbortSignal,
  actions?: PageAction[],
  session?: FetchSession,
) => Promise<FetchedDocument>;

interface Fetched {
  doc: FetchedDocument;
  mode: Mode;
}

/** The fetch modes this worker can run; dynamic only when it has a browser. */
export function fetchModes(deps: FetchDeps): { static: Fetcher; dynamic?: Fetcher } {
  const { config, browser } = deps;
  const limits = {
    timeoutMs: config.FETCH_TIMEOUT_MS,
    maxBytes: config.FETCH_MAX_BYTES,
    maxRedirects: config.FETCH_MAX_REDIRECTS,
  };
  const documents = deps.documents?.read;
  const fetchStaticPage: Fetcher = (url, signal, _actions, session) =>
    fetchStatic(url, {
      ...(session ? { originHeaders: staticOriginHeaders(session) } : {}),
      ...limits,
      policy: { allowPrivate: config.ALLOW_PRIVATE_ADDRESSES },
      signal,
      documents,
    });
  return {
    static: fetchStaticPage,
    dynamic: browser
      ? (url, signal, actions, session) =>
          renderPage(browser, url, {
            ...limits,
            waitMs: config.DYNAMIC_WAIT_MS,
            signal,
            ...(actions?.length ? { actions } : {}),
            ...(session ? { session } : {}),
            fetchDocument: (documentUrl) => fetchStaticPage(documentUrl, signal),
          })
      : undefined,
  };
}

/** Fetches a page in the asked mode and keeps it in memory (crawl pages are processed in one activity). */
export function makeFetchDocument(deps: FetchDeps) {
  return fetchDocumentWith(fetchModes(deps));
}

/** makeFetchDocument over given modes (a test's in-memory site): auto's choice and the checks are the same. */
export function fetchDocumentWith(modes: ReturnType<typeof fetchModes>) {
  return async function fetchDocument(
    url: string,
    fetchMode: FetchPageInput['fetchMode'],
    actions?: PageAction[],
    session?: FetchSession,
  ): Promise<FetchedPage> {
    const started = Date.now();
    const signal = currentActivity()?.cancellationSignal;
    // Actions need the page rendered (the API maps auto with actions to dynamic already).
    const { doc, mode } = actions?.length
      ? await fetchOnly(modes, 'dynamic', url, signal, actions, session)
      : fetchMode === 'auto'
        ? await fetchAuto(modes, url, signal, session)
        : await fetchOnly(modes, fetchMode, url, signal, undefined, session);
    return { doc, mode, fetchedAt: new Date().toISOString(), durationMs: Date.now() - started };
  };
}

export interface PageSourceInput {
  jobId: string;
  tenantId: string;
  pageId: string;
  url: string;
  fetchMode: FetchPageInput['fetchMode'];
  /** Reuse the tenant's page fetched within this many ms (absent or 0: always fetch). */
  maxAgeMs?: number;
  stored?: StoredSource;
  /** Page actions (dynamic mode): run before the page is read; such a page is never taken from max_age. */
  actions?: PageAction[];
  /** A stored site's crawl: the site's session goes with the fetch (activities/fetching/site-session.ts). */
  siteId?: string;
}

/** A page to process: fetched now (and being stored: await `saved`) or taken from the page store. */
export interface SourcedPage extends FetchedPage {
  fromCache: boolean;
  /** The page kept in the page store (for this job); awaited before the page's result is recorded. */
  saved: Promise<void>;
}

/**
 * Pages for a job: from the page store when the job says so (an earlier job's page, or the tenant's own
 * fetch younger than max_age), else fetched and stored. A stored page is recorded as this job's too.
 */
export function makePageSource(deps: ActivityDeps) {
  const fetchDocument = makeFetchDocument(deps);
  const sessions = makeSiteSessions(deps);
  const { pages } = deps;
  const screenshots = new ScreenshotStore(deps.contents);
  const settled = (saved: Promise<void>) => {
    saved.catch(() => undefined); // awaited by the caller; never an unhandled rejection meanwhile
    return saved;
  };
  return {
    /** The stored page this input may use, or null when it must be fetched. */
    async stored(input: PageSourceInput): Promise<SourcedPage | null> {
      const { stored } = input;
      const found = stored
        ? ((await pages?.ofJob(input.tenantId, stored.jobId, stored.pageId)) ?? null)
        : null;
      if (stored && !found && stored.missing === 'fail') {
        throw new CategorizedError(
          'content_expired',
          `the page ${input.url} of job ${stored.jobId} is no longer stored (pages are kept ` +
            'PAGE_RETENTION_DAYS) or was never fetched: run a new job to fetch it again',
        );
      }
      const page =
        found ??
        (input.maxAgeMs && input.maxAgeMs > 0 && !input.actions?.length
          ? ((await pages?.cached(input.tenantId, input.url, input.fetchMode, input.maxAgeMs)) ?? null)
          : null);
      if (!page || !pages) return null;
      const { body, headers, ...meta } = page;
      return {
        doc: {
          url: meta.final_url,
          status: meta.status,
          headers,
          contentType: meta.content_type,
          body,
          bytes: meta.bytes,
        },
        mode: meta.fetch_mode,
        fetchedAt: meta.fetched_at,
        durationMs: 0,
        fromCache: true,
        saved: settled(pages.reuse(input.tenantId, input.jobId, input.pageId, meta)),
      };
    },
    /**
     * Fetches the page; it is stored meanwhile, unless `hold` takes it (answers true) to store it with others.
     */
    async fetch(input: PageSourceInput, hold?: (page: NewPage) => boolean): Promise<SourcedPage> {
      const fetched = await sessions.fetch(input, fetchDocument);
      const { doc } = fetched;
      const page: NewPage = {
        tenantId: input.tenantId,
        jobId: input.jobId,
        pageId: input.pageId,
        url: input.url,
        finalUrl: doc.url,
        status: doc.status,
        headers: doc.headers,
        contentType: doc.contentType,
        fetchMode: fetched.mode,
        body: doc.body,
        bytes: doc.bytes,
        fetchedAt: fetched.fetchedAt,
        // A page its scripts took to another origin is this job's page, not the URL's latest.
        ...(doc.crossOriginNavigation ? { latest: false } : {}),
      };
      const held = pages ? (hold?.(page) ?? false) : false;
      const saved = pages && !held ? pages.save(page).then(() => undefined) : Promise.resolve();
      // Screenshots are kept like page contents; only their sizes go on (in the actions' outcomes).
      const shots = Promise.all(
        (doc.screenshots ?? []).map((shot) =>
          screenshots.put({
            jobId: input.jobId,
            pageId: input.pageId,
            index: shot.info.index,
            url: doc.url,
            png: shot.png,
            takenAt: fetched.fetchedAt,
          }),
        ),
      );
      return {
        ...fetched,
        fromCache: false,
        saved: settled(Promise.all([saved, shots]).then(() => undefined)),
      };
    },
    /** Stored when it may be, else fetched. */
    async obtain(input: PageSourceInput): Promise<SourcedPage> {
      return (await this.stored(input)) ?? this.fetch(input);
    },
  };
}

export function makeFetchPage(deps: FetchDeps & Pick<ActivityDeps, 'contents'>) {
  const fetchDocument = makeFetchDocument(deps);
  return async function fetchPage(input: FetchPageInput): Promise<FetchPageResult> {
    return categorized(async () => {
      const { doc, mode, fetchedAt, durationMs } = await fetchDocument(input.url, input.fetchMode);
      await deps.contents.put({
        _id: input.contentId,
        job_id: input.jobId,
        kind: 'raw',
        url: input.url,
        final_url: doc.url,
        content_type: doc.contentType,
        status_code: doc.status,
        body: doc.body,
        created_at: fetchedAt,
      });
      return {
        contentId: input.contentId,
        finalUrl: doc.url,
        statusCode: doc.status,
        contentType: doc.contentType,
        bytes: doc.bytes,
        fetchMode: mode,
        fetchedAt,
        durationMs,
      };
    });
  };
}

/**
 * One mode, as asked. A static page whose content is evidently missing (an empty app mount point, a noscript
 * wall, no text) is a failure, not an empty success; a short page that merely has scripts is taken as it is.
 */
async function fetchOnly(
  modes: ReturnType<typeof fetchModes>,
  mode: Mode,
  url: string,
  signal?: AbortSignal,
  actions?: PageAction[],
  session?: FetchSession,
): Promise<Fetched> {
  const fetcher = modes[mode] ?? unavailable();
  const doc = await fetcher(url, signal, actions, session);
  const assessment = assess(doc);
  if (mode === 'static') return acceptStatic(doc, assessment);
  refuseUnusable(doc, assessment);
  refuseEmpty(doc, assessment);
  return { doc, mode };
}

function acceptStatic(doc: FetchedDocument, assessment: Assessment, hint?: string): Fetched {
  refuseUnusable(doc, assessment);
  const missing = assessment.scriptNeed !== null && assessment.scriptNeed !== 'script_shell';
  if (missing) throw needsBrowser(assessment, hint);
  refuseEmpty(doc, assessment);
  return { doc, mode: 'static' };
}

/**
 * Static first; the browser when the static page needs scripts (an app shell, an empty body, a noscript wall)
 * or met a bot wall that a browser may get past (a JavaScript challenge).
 */
async function fetchAuto(
  modes: ReturnType<typeof fetchModes>,
  url: string,
  signal?: AbortSignal,
  session?: FetchSession,
): Promise<Fetched> {
  const doc = await modes.static(url, signal, undefined, session);
  const assessment = assess(doc);
  const render = assessment.wall !== null || (doc.status < 400 && assessment.scriptNeed !== null);
  if (!render) return acceptStatic(doc, assessment);
  if (!modes.dynamic) return acceptStatic(doc, assessment, ' and this worker has no browser');
  return fetchOnly(modes, 'dynamic', url, signal, undefined, session);
}

function needsBrowser(assessment: Assessment, suffix = '; use fetch_mode dynamic or auto'): CategorizedError {
  return new CategorizedError(
    'insufficient_content',
    `the page needs JavaScript to show its content (${assessment.scriptNeed})${suffix}`,
    false,
    { scriptNeed: assessment.scriptNeed },
  );
}

function unavailable(): never {
  const message = 'dynamic fetching is not available on this worker (no browser)';
  throw new CategorizedError('fetch_error', message, false, { reason: 'browser_unavailable' });
}
