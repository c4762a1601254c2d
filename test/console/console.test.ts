// The console at / in real Chromium against the real stack (API, worker, FerretDB, Temporal, fake model):
// sign in with a key, create and revoke a key, run an extract in the playground, start a crawl and watch it
// finish live, open its crawl map and retry the failed page, set a model key and a chain, sign out. Each screen
// passes axe-core with no serious or critical violation; another tenant's data never shows; the session cookie
// is refused from another origin and without its CSRF token. Takes the README's screenshots: into docs/img/
// with SAVE_SCREENSHOTS=1 (so an ordinary run leaves the checkout as it was), else into a temporary folder.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { buildConsole } from '../../api/console/build.js';
import { ConsoleSessionStore } from '../../shared/store/console-sessions.js';
import { type FixtureSite, html, startFixtureSite } from '../support/fixture-site.js';
import { startTestService, type TestService } from '../support/service.js';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const IMG_DIR = process.env.SAVE_SCREENSHOTS
  ? new URL('../../docs/img/', import.meta.url)
  : pathToFileURL(`${mkdtempSync(join(tmpdir(), 'console-shots-'))}/`);

let svc: TestService;
let site: FixtureSite;
let evil: FixtureSite;
let base: string;
let browser: Browser;
let page: Page;
let other: { tenantId: string; apiKey: string; jobId: string };
const cspErrors: string[] = [];
let brokenUp = false;

const product = (title: string, links: string[] = []) =>
  html(
    title,
    `<h1>${title}</h1><p>Price: 42</p><p>${'Hand-made walnut furniture. '.repeat(20)}</p>` +
      links.map((l) => `<a href="${l}">${l}</a>`).join(' '),
  );

const api = (method: string, path: string, key = svc.apiKey, payload?: object) =>
  svc.app.inject({ method: method as 'GET', url: `/api/v1${path}`, headers: svc.auth(key), payload });

async function axe(name: string) {
  await page.evaluate(axeSource); // CDP evaluation: not an inline script, so the page's CSP stays as it is
  const found = await page.evaluate(async () => {
    const axeGlobal = (globalThis as unknown as { axe: { run: (o: object) => Promise<any> } }).axe;
    const result = await axeGlobal.run({ resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  const bad = found.filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad, [], `axe on ${name}: ${JSON.stringify(bad)}`);
}

const text = (selector: string) => page.$eval(selector, (el) => el.textContent ?? '');
const go = async (hash: string) => {
  await page.evaluate((h) => {
    location.hash = h;
  }, hash);
};
const waitText = (selector: string, pattern: RegExp, timeout = 60_000) =>
  page.waitForFunction(
    (sel, source) => new RegExp(source).test(document.querySelector(sel)?.textContent ?? ''),
    { timeout },
    selector,
    pattern.source,
  );
const clickButton = async (label: RegExp) => {
  const buttons = await page.$$('button');
  for (const b of buttons) {
    const t = await b.evaluate((el) => el.textContent ?? '');
    if (label.test(t)) return b.click();
  }
  throw new Error(`no button ${label}`);
};
async function sessionCookie(): Promise<string> {
  const cookie = (await browser.cookies()).find((c) => c.name === 'console_session');
  assert.ok(cookie, 'the console holds a session cookie');
  return `console_session=${cookie.value}`;
}

before(async () => {
  await buildConsole();
  svc = await startTestService();
  site = await startFixtureSite();
  site.route('/product', product('Walnut chair'));
  site.route('/list', product('Catalogue', ['/a', '/b', '/broken']));
  site.route('/a', product('Item A'));
  site.route('/b', product('Item B'));
  site.route('/broken', (_req, res) => {
    if (brokenUp) res.writeHead(200, { 'content-type': 'text/html' }).end(product('Item fixed'));
    else res.writeHead(500, { 'content-type': 'text/html' }).end('down');
  });
  evil = await startFixtureSite();
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
  const o = await svc.newTenant('other-tenant');
  const job = await api('POST', '/extract', o.apiKey, {
    url: `${site.url}/product`,
    schema: { title: 'string' },
  });
  assert.equal(job.statusCode, 200, job.body);
  await api('POST', '/keys', o.apiKey, { name: 'other-tenant-key' });
  other = { ...o, jobId: job.json().job_id };
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
    headless: true,
  });
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  page.on('dialog', (dialog) => void dialog.accept());
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) cspErrors.push(msg.text());
  });
});

after(async () => {
  await browser?.close();
  await evil?.close();
  await site?.close();
  await svc?.close();
});

test('the console is served at / with a strict CSP; /docs and the API stay as they were', async () => {
  const res = await fetch(`${base}/`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'; style-src 'self'/);
  assert.equal((await fetch(`${base}/docs/`)).status, 200);
  assert.equal((await fetch(`${base}/api/v1/jobs`)).status, 401);
});

test('sign in with an API key: the browser holds only an httpOnly SameSite=Strict session cookie', async () => {
  await page.goto(`${base}/`);
  await page.waitForSelector('#api-key');
  await axe('sign-in');
  await page.type('#api-key', 'sk_not_a_key');
  await page.click('button[type=submit]');
  await waitText('[role=alert]', /Unauthorized/);
  await page.$eval('#api-key', (el) => {
    (el as HTMLInputElement).value = '';
  });
  await page.type('#api-key', svc.apiKey);
  await page.click('button[type=submit]');
  await page.waitForSelector('table.jobs');
  const cookie = (await browser.cookies()).find((c) => c.name === 'console_session');
  assert.ok(cookie?.httpOnly && cookie.sameSite === 'Strict' && cookie.expires > Date.now() / 1000);
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + document.cookie);
  assert.ok(!stored.includes(svc.apiKey) && !stored.includes('console_session'));
  await axe('jobs');
});

test('a one-time sign-in link signs in once', async () => {
  const token = await new ConsoleSessionStore(svc.deps.db).createLink(svc.tenantId);
  const signIn = () =>
    fetch(`${base}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ link_token: token }),
    });
  const first = await signIn();
  assert.equal(first.status, 200);
  assert.equal((await first.json()).tenant.id, svc.tenantId);
  assert.match(first.headers.get('set-cookie') ?? '', /HttpOnly.*SameSite=Strict|SameSite=Strict.*HttpOnly/i);
  assert.equal((await signIn()).status, 401);
});

test('sessions: only a key that may manage keys signs in; a session ends with its key and at its expiry', async () => {
  const sameOrigin = { 'sec-fetch-site': 'same-origin' };
  const signIn = (apiKey: string) =>
    svc.app.inject({
      method: 'POST',
      url: '/console/session',
      headers: sameOrigin,
      payload: { api_key: apiKey },
    });
  const reader = (await api('POST', '/keys', svc.apiKey, { name: 'reader', scopes: ['read'] })).json();
  const refused = await signIn(reader.key);
  assert.equal(refused.statusCode, 403, refused.body);
  assert.match(refused.json().detail, /manage keys/);
  const full = (await api('POST', '/keys', svc.apiKey, { name: 'short-lived' })).json();
  const opened = await signIn(full.key);
  assert.equal(opened.statusCode, 200, opened.body);
  const cookie = /console_session=[^;]+/.exec(String(opened.headers['set-cookie']))![0];
  const jobs = () =>
    svc.app.inject({ method: 'GET', url: '/api/v1/jobs', headers: { ...sameOrigin, cookie } });
  const ok = await jobs();
  assert.equal(ok.statusCode, 200);
  assert.ok(ok.headers['x-ratelimit-limit'], "the tenant's rate limit applies to the session");
  await api('DELETE', `/keys/${full.id}`);
  assert.equal((await jobs()).statusCode, 401, 'revoking the key ended the session');
  const past = new ConsoleSessionStore(svc.deps.db, () => Date.now() - 9 * 3600_000);
  const { token } = await past.open(svc.tenantId, null);
  const expired = await svc.app.inject({
    method: 'GET',
    url: '/api/v1/jobs',
    headers: { ...sameOrigin, cookie: `console_session=${token}` },
  });
  assert.equal(expired.statusCode, 401);
});

test('keys: create one (shown once, with its scope), then revoke it', async () => {
  await go('#/keys');
  await page.waitForSelector('form.row input');
  await page.type('form.row input', 'console-made');
  await page.click('form.row button[type=submit]');
  await page.waitForSelector('[data-testid=new-key]');
  const key = (await text('[data-testid=new-key]')).trim();
  assert.match(await text('.notice'), /console-made.*\(extract\)/);
  assert.equal((await api('GET', '/jobs', key)).statusCode, 200, 'the new key works');
  const listed = (await api('GET', '/keys'))
    .json()
    .keys.find((k: { name: string }) => k.name === 'console-made');
  assert.deepEqual(listed.scopes, ['extract']);
  assert.ok(!(await page.content()).includes('other-tenant-key'), "another tenant's keys never show");
  await axe('keys');
  await page.click(`tr[data-key-id="${listed.id}"] button`);
  await page.waitForFunction((id) => !document.querySelector(`tr[data-key-id="${id}"]`), {}, listed.id);
  assert.equal((await api('GET', '/jobs', key)).statusCode, 401, 'the revoked key no longer works');
});

test('playground: the detected input_format shows as you type; an extract shows data, provenance and cost', async () => {
  await go('#/playground');
  await page.waitForSelector('textarea');
  await waitText('[data-testid=input-format]', /fields \(2 fields\)/);
  await page.$eval('textarea', (el) => {
    (el as HTMLTextAreaElement).value = '';
  });
  await page.type('textarea', 'name: product\nfields:\n  - name: title\n    type: string\n');
  await waitText('[data-testid=input-format]', /structured \(1 fields\)/);
  await page.type('input[type=url]', `${site.url}/product`);
  await page.click('input[type=checkbox]'); // capture debug
  await clickButton(/Run extract/);
  await page.waitForSelector('[data-testid=extract-cost]', { timeout: 60_000 });
  const facts = await text('[data-testid=extract-facts]');
  const jobId = await text('[data-testid=extract-facts] a');
  const job = (await api('GET', `/jobs/${jobId}`)).json();
  assert.equal(job.status, 'completed');
  assert.ok(job.cost_usd > 0, 'the fake model has a list price');
  assert.equal(
    await text('[data-testid=extract-cost]'),
    `$${job.cost_usd.toFixed(job.cost_usd < 0.01 ? 6 : 4)}`,
  );
  assert.match(await text('.json'), /"title"/);
  assert.match(facts, /fetch \d+ ms · clean \d+ ms · model \d+ ms/);
  assert.match(await page.content(), /Debug capture/);
  await axe('playground');
  await mkdir(IMG_DIR, { recursive: true });
  await page.screenshot({ path: new URL('console-playground.png', IMG_DIR).pathname, fullPage: true });
});

test('a crawl started from the playground finishes live; its map shows the failed page, which retries', async () => {
  await page.click('input[type=radio]:nth-of-type(1)'); // reset focus
  const radios = await page.$$('input[name=mode]');
  await radios[1]!.click(); // crawl
  const url = await page.$('input[type=url]');
  await url!.click({ count: 3 });
  await url!.type(`${site.url}/list`);
  await page.waitForSelector('input[type=number]');
  const inputs = await page.$$('.row input:not([type])');
  await inputs[inputs.length - 1]!.type('/(a|b|broken)$'); // follow pattern
  await clickButton(/Start crawl/);
  await page.waitForFunction(() => /#\/jobs\/.+/.test(location.hash));
  const crawlId = decodeURIComponent((await page.evaluate(() => location.hash)).split('/')[2]!);
  await waitText('[data-testid=job-status]', /completed/, 90_000);
  assert.match(await text('.hint[aria-live]'), /complete/, 'the page followed the job stream');
  await page.waitForSelector('.tree li[data-status=failed]');
  assert.match(await text('.tree'), /broken.*http_status|http_status/s);
  assert.equal((await page.$$('.tree li')).length, 4);
  await axe('job page');
  brokenUp = true;
  await clickButton(/Retry failed pages/);
  await page.waitForFunction((id) => !location.hash.endsWith(id), {}, crawlId);
  const retryId = decodeURIComponent((await page.evaluate(() => location.hash)).split('/')[2]!);
  await waitText('[data-testid=job-status]', /completed/, 90_000);
  const retry = (await api('GET', `/jobs/${retryId}`)).json();
  assert.equal(retry.retry_of, crawlId);
  assert.equal(retry.failed_count, 0);

  await go('#/jobs');
  await page.waitForSelector(`tr[data-job-id="${retryId}"]`);
  assert.ok(!(await page.content()).includes(other.jobId), "another tenant's jobs never show");
  await page.screenshot({ path: new URL('console-jobs.png', IMG_DIR).pathname });
  await page.setViewport({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  assert.ok(overflow <= 0, `no sideways scrolling at phone width (${overflow} px too wide)`);
  await page.setViewport({ width: 1280, height: 800 });
  await go(`#/jobs/${other.jobId}`);
  await waitText('[role=alert]', /Not found/);
});

test('settings: a model key is stored and never shown back; the chain is saved in order; a schema is stored', async () => {
  await go('#/settings');
  await page.waitForSelector('input[type=password]');
  await page.type('input[type=password]', 'sk-console-secret-123');
  await clickButton(/Save key/);
  await waitText('[data-testid=model-keys]', /openai: key stored/);
  assert.ok(!(await page.content()).includes('sk-console-secret-123'));
  await clickButton(/Add model/);
  await page.type('.chain input', 'gpt-4o-mini');
  await clickButton(/Save chain/);
  await waitText('[data-testid=saved-chain]', /openai\/gpt-4o-mini/);
  const chain = (await api('GET', '/llm/chain')).json().chain;
  assert.deepEqual(
    chain.map((e: { provider: string; model: string }) => `${e.provider}/${e.model}`),
    ['openai/gpt-4o-mini'],
  );
  assert.deepEqual(
    (await api('GET', '/llm/chain', other.apiKey)).json().chain,
    [],
    'the other tenant is untouched',
  );
  await page.type('form.grid input', 'products');
  await page.type('form.grid textarea', 'title: string\nprice: number\n');
  await clickButton(/Save schema/);
  await waitText('[data-testid=stored-schemas]', /products/);
  const stored = (await api('GET', '/schemas')).json().schemas;
  assert.deepEqual(
    stored.map((x: { name: string }) => x.name),
    ['products'],
  );
  await axe('settings');
});

test('the session cookie is refused from another origin and without the CSRF token', async () => {
  const cookie = await sessionCookie();
  const ours = { cookie, 'sec-fetch-site': 'same-origin' };
  assert.equal((await fetch(`${base}/api/v1/keys`, { headers: ours })).status, 200);
  const fromEvil = await fetch(`${base}/api/v1/keys`, {
    headers: { cookie, 'sec-fetch-site': 'same-site', origin: evil.url },
  });
  assert.equal(fromEvil.status, 403);
  const noCsrf = await page.evaluate(async () => {
    const res = await fetch('/api/v1/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'no-csrf' }),
    });
    return res.status;
  });
  assert.equal(noCsrf, 403);
  // A page of another origin on the same site (the cookie is sent: SameSite is per site) posts a form.
  evil.route(
    '/',
    html(
      'evil',
      `<form method="post" action="${base}/api/v1/keys" enctype="text/plain"><input name='{"name":"evil","x":"' value='"}'></form>` +
        '<script>document.forms[0].submit()</script>',
    ),
  );
  const tab = await browser.newPage();
  const posted = tab.waitForResponse((r) => r.url().startsWith(`${base}/api/v1/keys`));
  await tab.goto(`${evil.url}/`);
  assert.equal((await posted).status(), 403);
  await tab.close();
  const keys = await api('GET', '/keys');
  assert.equal(keys.statusCode, 200, keys.body);
  const names = keys.json().keys.map((k: { name: string }) => k.name);
  assert.ok(!names.includes('evil') && !names.includes('no-csrf'));
});

test('sign out ends the session on the server; a sign-in link signs the browser in', async () => {
  const cookie = await sessionCookie();
  await clickButton(/Sign out/);
  await page.waitForSelector('#api-key');
  const res = await fetch(`${base}/api/v1/jobs`, { headers: { cookie, 'sec-fetch-site': 'same-origin' } });
  assert.equal(res.status, 401);
  // A sign-in link opened in the browser signs in, and leaves the address bar.
  const token = await new ConsoleSessionStore(svc.deps.db).createLink(svc.tenantId);
  await page.goto(`${base}/#sign-in=${token}`);
  await page.waitForSelector('table.jobs');
  assert.equal(await page.evaluate(() => location.hash), '#/jobs');
  assert.match(await text('.who'), /tenant-a/);
  assert.deepEqual(cspErrors, [], 'nothing the console does breaks its own CSP');
});
