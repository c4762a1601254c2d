// A stored site's session in its crawls' fetches. The job carries only the site id; here, in the activity,
// the sealed session is opened and its cookies and headers go with the fetch to the site's origin only. Only
// the login recipe types secrets: its page is never captured, so a secret cannot reach anything a key reads
// (a job's own steps could type it into a screenshot or a search box the result shows). A page that matches
// the site's logged-out rule makes the login recipe run once (its cookies become the new session, sealed and
// stored) and the page is fetched again; without a recipe, or still logged out, the page fails with
// login_required. No value of the session is put into a result, an error message, an event or a log.
import { compileUrlPattern } from '../../shared/crawl/url-pattern.js';
import { CategorizedError } from '../../shared/errors.js';
import type { PageAction } from '../../shared/schemas/actions.js';
import type { FetchMode } from '../../shared/schemas/common.js';
import type { LoggedOutRule } from '../../shared/schemas/site-session.js';
import { redactSecrets } from '../../shared/secrets.js';
import type { OpenedSession } from '../../shared/store/site-sessions.js';
import { currentActivity } from '../common/activity-context.js';
import { htmlPoolOf } from '../reading/html-pool/pool.js';
import type { SecretTypeAction } from './browser/page-actions.js';
import { renderPage } from './browser/render-page.js';
import { type FetchSession, siteCookies } from './browser/session-scope.js';
import type { ActivityDeps } from './deps.js';
import type { FetchedPage } from './page-document.js';

export interface SessionFetchInput {
  tenantId: string;
  /** A stored site's crawl: the site whose session the fetch uses. */
  siteId?: string;
  url: string;
  fetchMode: FetchMode;
  actions?: PageAction[];
}

export type SessionFetcher = (
  url: string,
  fetchMode: SessionFetchInput['fetchMode'],
  actions?: PageAction[],
  session?: FetchSession,
) => Promise<FetchedPage>;

/**
 * The login recipe's actions with each `type` step's secret put in as its text (in memory, for this login
 * only), to be typed only while the page is on the site's origin (a page that sent the browser elsewhere gets
 * no secret). Never used for a job's actions: there a secret stays unresolved and its step fails.
 */
export function withSecrets(
  actions: PageAction[],
  secrets: Record<string, string>,
  origin: string,
): PageAction[] {
  return actions.map((a): PageAction | SecretTypeAction =>
    a.kind === 'type' && a.secret !== undefined && secrets[a.secret] !== undefined
      ? { ...a, text: secrets[a.secret], secret_origin: origin }
      : a,
  );
}

function scopeOf(session: OpenedSession): FetchSession {
  const site = new URL(session.doc.site_url);
  return {
    origin: site.origin,
    hostname: site.hostname.toLowerCase(),
    cookies: session.cookies,
    headers: session.headers,
  };
}

const loginRequired = (url: string, why: string) =>
  new CategorizedError('login_required', `${url} was served logged out: ${why}`, false, { reason: why });

export function makeSiteSessions(deps: ActivityDeps) {
  /** Logins in flight in this process, by session: pages that find the site logged out at once share one. */
  const logins = new Map<string, Promise<OpenedSession>>();

  async function loggedOut(page: FetchedPage, rule: LoggedOutRule | null): Promise<boolean> {
    if (!rule) return false;
    if (rule.url_pattern && compileUrlPattern(rule.url_pattern).test(page.doc.url)) return true;
    if (!rule.selector || !/html|xml/.test(page.doc.contentType)) return false;
    const task = { kind: 'match' as const, body: page.doc.body, selector: rule.selector };
    return htmlPoolOf(deps).run(task, currentActivity()?.cancellationSignal);
  }

  /** Runs the login recipe in the browser; the cookies it leaves for the site's host become the session. */
  async function logIn(used: OpenedSession): Promise<OpenedSession> {
    const store = deps.sessions;
    const current = store ? await store.open(used.doc.tenant_id, used.doc.site_id) : null;
    if (!store || !current?.doc.login) throw loginRequired(used.doc.site_url, 'the site has no login recipe');
    // Another page's login renewed the cookies since this page used them: use those.
    if (current.doc.cookies_updated_at !== used.doc.cookies_updated_at && current.cookies.length)
      return current;
    const { login } = current.doc;
    const scope = scopeOf(current);
    if (!deps.browser)
      throw loginRequired(login.url, 'the login recipe needs the browser; this worker has none');
    let cookies: Awaited<ReturnType<typeof siteCookies>> = [];
    try {
      const { config } = deps;
      await renderPage(deps.browser, login.url, {
        timeoutMs: config.FETCH_TIMEOUT_MS,
        waitMs: config.DYNAMIC_WAIT_MS,
        maxBytes: config.FETCH_MAX_BYTES,
        maxRedirects: config.FETCH_MAX_REDIRECTS,
        signal: currentActivity()?.cancellationSignal,
        actions: withSecrets(login.actions, current.secrets, scope.origin),
        session: { ...scope, cookies: [] },
        afterActions: async (page) => {
          cookies = await siteCookies(page, scope.hostname);
        },
      });
    } catch (err) {
      const message = redactSecrets(err instanceof Error ? err.message : String(err), [
        ...Object.values(current.secrets),
      ]);
      await store.loginFailed(current, message);
      if (err instanceof CategorizedError && err.retryable) throw err; // the site was unreachable: try again
      throw new CategorizedError('login_required', `the login recipe failed: ${message}`, false, {
        reason: 'login_failed',
      });
    }
    if (cookies.length === 0) {
      await store.loginFailed(current, 'the login recipe left no cookie for the site');
      throw loginRequired(login.url, `the login recipe left no cookie for ${scope.hostname}`);
    }
    return (
      (await store.loggedIn(current, cookies)) ??
      (await store.open(used.doc.tenant_id, used.doc.site_id)) ??
      current
    );
  }

  function logInOnce(used: OpenedSession): Promise<OpenedSession> {
    const key = used.doc._id;
    let running = logins.get(key);
    if (!running) {
      running = logIn(used).finally(() => logins.delete(key));
      logins.set(key, running);
    }
    return running;
  }

  return {
    /** Fetches the page with the site's session (if the job is a site's crawl and the site has one). */
    async fetch(input: SessionFetchInput, fetchDocument: SessionFetcher): Promise<FetchedPage> {
      const opened =
        input.siteId && deps.sessions ? await deps.sessions.open(input.tenantId, input.siteId) : null;
      if (!opened) return fetchDocument(input.url, input.fetchMode, input.actions);
      // The job's actions get no secret (see withSecrets).
      const attempt = (s: OpenedSession) =>
        fetchDocument(input.url, input.fetchMode, input.actions, scopeOf(s));
      // A recipe and no cookies yet: log in first.
      const first = Boolean(opened.doc.login) && opened.cookies.length === 0;
      let session = first ? await logInOnce(opened) : opened;
      let page = await attempt(session);
      if (!(await loggedOut(page, session.doc.logged_out))) return page;
      if (!session.doc.login) throw loginRequired(page.doc.url, 'the site has no login recipe');
      if (first) throw loginRequired(page.doc.url, 'still logged out after the login recipe ran');
      session = await logInOnce(session);
      page = await attempt(session);
      if (await loggedOut(page, session.doc.logged_out))
        throw loginRequired(page.doc.url, 'still logged out after the login recipe ran');
      return page;
    },
  };
}
