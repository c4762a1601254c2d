// The console at / in real Chromium against the real stack (API, worker, FerretDB, Temporal, fake model):
// sign in with a key, create and revoke a key, run an extract in the playground, start a crawl and watch it
// finish live, open its crawl map and retry the failed page, set a model key and a chain, sign out. Each screen
// passes axe-core with no serious or critical violation; another tenant's data never shows; the session cookie
// is refused from another origin and without its CSRF token. Takes the README's screenshots: into docs/img/
// with SAVE_SCREENSHOTS=1 (so an ordinary run leaves the checkout as it was), else into a temporary folder.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { buildConsole } from '../../../api/console/build.js';
import { verifyWebhook } from '../../../clients/typescript/src/index.js';
import { ConsoleSessionStore } from '../../../shared/store/console-sessions.js';
import type { JobType } from '../../../shared/temporal-names.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { jobLog } from '../../support/job-log.js';
import { startTestService, type TestService } from '../../support/service.js';
import { type Receiver, startReceiver } from '../../webhooks/receiver.js';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const IMG_DIR = process.env.SAVE_SCREENSHOTS
  ? new URL('../../../docs/img/', import.meta.url)
  : pathToFileURL(`${mkdtempSync(join(tmpdir(), 'console-shots-'))}/`);

let svc: TestService;
let site: FixtureSite;
let evil: FixtureSite;
let receiver: Receiver;
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
/** Clicks the button labelled `label` inside the element `scope` selects. */
const clickIn = async (scope: string, label: RegExp) => {
  await page.waitForSelector(scope);
  for (const b of await page.$$(`${scope} button`)) {
    if (label.test(await b.evaluate((el) => el.textContent ?? ''))) return b.click();
  }
  throw new Error(`no button ${label} in ${scope}`);
};
/** Replaces the value of a field (input or textarea) by typing. */
const retype = async (selector: string, value: string) => {
  await page.$eval(selector, (el) => {
    (el as HTMLInputElement).value = '';
  });
  await page.type(selector, value);
};
/** A job of the tenant written as the workflows would write it, without running it. */
async function seedJob(tenantId: string, type: JobType, status: 'completed' | 'failed'): Promise<string> {
  const id = `job_${randomUUID().replaceAll('-', '')}`;
  const log = jobLog(id, tenantId);
  await svc.deps.events.append([log.created(type, `https://seeded.test/${type}`), log.started()]);
  await svc.deps.jobs.nextTenantSeq(tenantId, id);
  await svc.deps.events.append([status === 'completed' ? log.jobCompleted() : log.jobFailed()]);
  return id;
}
async function sessionCookie(): Promise<string> {
  const cookie = (await browser.cookies()).find((c) => c.name === 'console_session');
  assert.ok(cookie, 'the console holds a session cookie');
  return `console_session=${cookie.value}`;
}

before(async () => {
  await buildConsole();
  // The browser's requests and the test's own share the tenant's rate limit: room for both in one minute.
  svc = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: '600' } });
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
  receiver = await startReceiver();
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
  await receiver?.close();
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

test("jobs: the type and status filters are the API's, over all the jobs, not the latest 100", async () => {
  const oldMap = await seedJob(svc.tenantId, 'map', 'failed');
  for (let i = 0; i < 100; i++) await seedJob(svc.tenantId, 'extract', 'completed');
  const theirs = await seedJob(other.tenantId, 'map', 'failed');
  await go('#/keys');
  await go('#/jobs');
  await page.waitForSelector('table.jobs tbody tr');
  assert.equal(await page.$(`tr[data-job-id="${oldMap}"]`), null, 'past the latest 100');
  const asked = page.waitForRequest((r) => /\/api\/v1\/jobs\?.*type=map/.test(r.url()));
  await page.select('.filters label:nth-of-type(1) select', 'map');
  assert.match((await asked).url(), /limit=100/);
  await page.waitForSelector(`tr[data-job-id="${oldMap}"]`);
  assert.equal((await page.$$('table.jobs tbody tr')).length, 1);
  assert.ok(!(await page.content()).includes(theirs), "another tenant's jobs never show");
  await page.select('.filters label:nth-of-type(2) select', 'completed');
  await waitText('[data-testid=no-jobs]', /No job matches/);
  await page.select('.filters label:nth-of-type(2) select', 'failed');
  await page.waitForSelector(`tr[data-job-id="${oldMap}"]`);
  await axe('jobs filtered');
  await page.select('.filters label:nth-of-type(1) select', '');
  await page.select('.filters label:nth-of-type(2) select', '');
  await page.waitForFunction(() => document.querySelectorAll('table.jobs tbody tr').length === 100);
});

test('settings: a model key is stored and never shown back; the chain is saved in order; a schema is stored', async () => {
  await go('#/settings');
  const keyField = 'form[aria-label="Save a model key"] input[type=password]';
  await page.waitForSelector(keyField);
  await page.type(keyField, 'sk-console-secret-123');
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
  await page.type('form[aria-label="New schema"] input', 'products');
  await page.type('form[aria-label="New schema"] textarea', 'title: string\nprice: number\n');
  await clickButton(/Save schema/);
  await waitText('[data-testid=stored-schemas]', /products/);
  const stored = (await api('GET', '/schemas')).json().schemas;
  assert.deepEqual(
    stored.map((x: { name: string }) => x.name),
    ['products'],
  );
  await axe('settings');
});

test('settings: "Send test" sends a signed test delivery to a saved webhook and shows its outcome or problem', async () => {
  const form = 'form[aria-label="Add a webhook"]';
  const secret = 'whsec_Y29uc29sZS10ZXN0LXNlY3JldA==';
  await page.type(`${form} input:not([type])`, 'console-hook');
  await page.type(`${form} input[type=url]`, `${receiver.url}/console`);
  await page.type(`${form} input[type=password]`, secret);
  await clickIn(form, /Add webhook/);
  await waitText('[data-testid=webhooks]', /console-hook.*signed/);
  const saved = (await api('GET', '/webhooks')).json().webhooks;
  const hook = saved.find((w: { name: string }) => w.name === 'console-hook');
  assert.ok(hook?.has_secret);
  const row = `[data-testid=webhooks] li[data-item-id="${hook.id}"]`;

  await clickIn(row, /Send test/);
  await waitText('[data-testid=webhook-test-result]', /Test delivered: HTTP 200 in \d+ ms, signed/);
  const [got] = await receiver.waitFor('/console', 1);
  assert.equal(got!.headers['x-service-event'], 'webhook.test');
  assert.equal(await verifyWebhook(got!.body, got!.headers as Record<string, string>, secret), true);
  assert.equal(JSON.parse(got!.body).data.webhook_id, hook.id);
  assert.ok(!(await page.content()).includes(secret), 'the secret is never shown back');
  await axe('settings: webhook test delivered');

  receiver.answer('/console', [500]);
  await clickIn(row, /Send test/);
  await waitText(
    '[data-testid=webhook-test-result]',
    /Test failed: HTTP 500 .*the receiver answered HTTP 500/,
  );
  assert.equal(receiver.on('/console').length, 2);
  await axe('settings: webhook test failed');

  // Deleted behind the page's back: the 404 problem's title and detail show.
  assert.equal((await api('DELETE', `/webhooks/${hook.id}`)).statusCode, 204);
  await clickIn(row, /Send test/);
  await waitText('[role=alert]', /Not found.*webhook/);
  assert.equal(receiver.on('/console').length, 2, 'nothing sent for a deleted webhook');
});

test('settings: stored sites and schemas are edited in place', async () => {
  const add = 'form[aria-label="Add a site"]';
  await page.waitForSelector(add);
  await page.type(`${add} input`, `${site.url}/list`);
  await clickIn(add, /Add site/);
  await waitText('[data-testid=stored-sites]', /\/list/);
  const [stored] = (await api('GET', '/sites')).json().sites;
  await clickIn(`[data-testid=stored-sites] li[data-item-id="${stored.id}"]`, /^Edit$/);
  const edit = `form[aria-label="Edit site ${stored.name}"]`;
  await page.waitForSelector(edit);
  await axe('settings: editing a site');
  await retype(`${edit} input:not([type])`, 'Catalogue site');
  await retype(`${edit} input[type=number]`, '5');
  await page.select(`${edit} select`, 'static');
  await clickIn(edit, /Save site/);
  await waitText('[data-testid=stored-sites]', /Catalogue site.*static, at most 5 pages/);
  const site2 = (await api('GET', `/sites/${stored.id}`)).json();
  assert.equal(site2.name, 'Catalogue site');
  assert.equal(site2.fetch_mode, 'static');
  assert.equal(site2.crawl_options.max_pages, 5);
  assert.equal(site2.url, stored.url, 'the URL stays');

  const [schema] = (await api('GET', '/schemas')).json().schemas;
  await clickIn(`[data-testid=stored-schemas] li[data-item-id="${schema.id}"]`, /^Edit$/);
  const editSchema = `form[aria-label="Edit schema ${schema.name}"]`;
  await page.waitForSelector(editSchema);
  await page.type(`${editSchema} input:not([type])`, ' v2');
  await page.type(`${editSchema} textarea`, 'sku: string\n');
  await clickIn(editSchema, /Save changes/);
  await waitText('[data-testid=stored-schemas]', /products v2/);
  const changed = (await api('GET', `/schemas/${schema.id}`)).json();
  assert.equal(changed.name, 'products v2');
  assert.match(changed.schema_yaml, /sku: string/);
  // An unusable schema: the problem's detail and the field in error show in the edit form.
  await clickIn(`[data-testid=stored-schemas] li[data-item-id="${schema.id}"]`, /^Edit$/);
  const editAgain = 'form[aria-label="Edit schema products v2"]';
  await page.waitForSelector(editAgain);
  await retype(`${editAgain} textarea`, 'fields: 12');
  await clickIn(editAgain, /Save changes/);
  await waitText(`${editAgain} [role=alert]`, /schema_yaml/);
  await clickIn(editAgain, /Cancel/);
  assert.match((await api('GET', `/schemas/${schema.id}`)).json().schema_yaml, /sku: string/);
});

test('settings: a monitor is created in the console, runs now, and shows its change history', async () => {
  const form = 'form[aria-label="New monitor"]';
  await page.type(`${form} input:not([type])`, 'chair watch');
  await page.type(`${form} input[type=url]`, `${site.url}/product`);
  await page.type(`${form} textarea`, 'title: string');
  await retype(`${form} input[required]:not([type])`, '6h');
  await clickIn(form, /Create monitor/);
  await waitText('[data-testid=monitors]', /chair watch: .*\/product \(active, 0 runs/);
  const [monitor] = (await api('GET', '/monitors')).json().monitors;
  assert.equal(monitor.name, 'chair watch');
  assert.equal(monitor.kind, 'extract');
  assert.equal(monitor.schedule.every, '6h');
  assert.deepEqual((await api('GET', '/monitors', other.apiKey)).json().monitors, []);
  await axe('settings: monitor created');
  await clickIn(`[data-testid=monitors] li[data-item-id="${monitor.id}"]`, /Run now/);
  const deadline = Date.now() + 60_000;
  while ((await api('GET', `/monitors/${monitor.id}`)).json().last_run?.outcome !== 'baseline') {
    assert.ok(Date.now() < deadline, 'the run started by "Run now" ends as the baseline');
    await new Promise((r) => setTimeout(r, 500));
  }
  await go('#/keys');
  await go('#/settings');
  await waitText('[data-testid=monitors]', /chair watch: .*1 runs, 0 changes/);
  await page.click(`[data-testid=monitors] li[data-item-id="${monitor.id}"] summary`);
  await waitText(`[data-testid=monitors] li[data-item-id="${monitor.id}"] pre`, /"changes": \[\]/);
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
