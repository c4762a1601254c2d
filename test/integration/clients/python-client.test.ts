// The Python client (clients/python) against the real stack: pytest (in the venv scripts/setup.mjs makes) runs
// clients/python/tests over HTTP through a proxy that records requests, drops each job's first stream after
// a few events and answers 429/503 on request; and the committed models against the live document.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { generatePythonModels, MODELS_PATH } from '../../../scripts/generate-python-client.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { runPytest } from '../../support/pytest.js';
import { startTestService, type TestService } from '../../support/service.js';
import { type Plan, type Seen, startProxy, type TestProxy } from './proxy.js';

let svc: TestService;
let site: FixtureSite;
let base: string;
let proxy: TestProxy;
let limitedKey: string;

const page = (title: string, links: string[]) =>
  html(
    title,
    `<main><h1>${title}</h1><p>Price: 12.5</p><p>${title} is a product page with enough text to extract ` +
      `from.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main>`,
  );

/** What the pytest side asks of the proxy (see clients/python/tests/conftest.py). */
function planFor(proxy: TestProxy): (seen: Seen) => Plan {
  const faulted = new Set<string>();
  const cut = new Set<string>();
  const header = (seen: Seen, name: string) => {
    const value = seen.headers[name];
    return typeof value === 'string' ? value : null;
  };
  return (seen) => {
    if (seen.path === '/__test/seen') {
      const body = proxy.seen
        .filter((s) => !s.path.startsWith('/__test/'))
        .map((s) => ({
          method: s.method,
          path: s.path,
          'idempotency-key': header(s, 'idempotency-key'),
          'last-event-id': header(s, 'last-event-id'),
          'x-test-fault': header(s, 'x-test-fault'),
          at: s.at,
        }));
      return {
        kind: 'answer',
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      };
    }
    const fault = /^(\d{3})-once$/.exec(header(seen, 'x-test-fault') ?? '');
    const once = `${seen.method} ${seen.path} ${header(seen, 'idempotency-key')}`;
    if (fault?.[1] && !faulted.has(once)) {
      faulted.add(once);
      const status = Number(fault[1]);
      const headers = { 'content-type': 'application/problem+json', 'retry-after': '1' };
      const body = JSON.stringify({
        type: 'about:blank',
        status,
        title: 'Try again',
        detail: 'test',
        instance: '',
        errors: [],
      });
      return { kind: 'answer', status, headers, body };
    }
    const stream = /^\/api\/v1\/jobs\/([^/?]+)\/stream/.exec(seen.path)?.[1];
    if (stream && !cut.has(stream)) {
      cut.add(stream);
      return { kind: 'cut-after-events', events: 3 };
    }
    return { kind: 'forward' };
  };
}

before(async () => {
  svc = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  site = await startFixtureSite();
  site.route('/', page('Home', ['/a', '/b', '/c']));
  for (const p of ['a', 'b', 'c']) site.route(`/${p}`, page(`Item ${p}`, ['/']));
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
  proxy = await startProxy(base);
  proxy.plan = planFor(proxy);
  const limited = await svc.newTenant('python-client-limited');
  await svc.deps.tenants.setRateLimit(limited.tenantId, 1);
  limitedKey = limited.apiKey;
});
after(async () => {
  await proxy?.close();
  await site?.close();
  await svc?.close();
});

const CLIENT_DIR = fileURLToPath(new URL('../../../clients/python', import.meta.url));

/** The client's own tests, this checkout's client first: the venv (shared by every clone) holds whichever
 * checkout installed it. */
const pytest = (env: Record<string, string>) =>
  runPytest(join(CLIENT_DIR, 'tests'), { PYTHONPATH: join(CLIENT_DIR, 'src'), ...env }, 150_000);

// The two tests run side by side: the generator's few seconds overlap pytest's.
describe('Python client', { concurrency: 2 }, () => {
  test('pytest over clients/python/tests passes against the real stack', async (t) => {
    const { code, output } = await pytest({
      EXTRACT_SERVICE_URL: proxy.url,
      EXTRACT_SERVICE_DIRECT_URL: base,
      EXTRACT_SERVICE_API_KEY: svc.apiKey,
      EXTRACT_SERVICE_LIMITED_API_KEY: limitedKey,
      FIXTURE_SITE_URL: site.url,
    });
    assert.equal(code, 0, output);
    const summary = /^=*\s*(\S.*?) in [\d.]+s\b/m.exec(output)?.[1] ?? '';
    assert.match(summary, /^\d+ passed$/, output); // nothing failed, skipped or errored
    assert.ok(Number(summary.split(' ')[0]) >= 12, output);
    t.diagnostic(output.slice(output.indexOf('slowest')).trim());
    assert.ok(
      proxy.seen.some((s) => s.path.endsWith('/stream') && s.headers['last-event-id']),
      'a stream resumed through the proxy',
    );
  });

  test('the committed models.py is what the generator makes of the live document', async () => {
    const document = await (await fetch(`${base}/api/v1/openapi.json`)).json();
    assert.ok(
      (await generatePythonModels(document)) === readFileSync(MODELS_PATH, 'utf8'),
      'clients/python/src/extract_service_client/models.py is out of date: run `npm run client:generate`',
    );
  });
});
