// The Refyne product's official Python SDK (refyne 0.1.46 from PyPI, installed into the test venv by
// scripts/setup.mjs), unchanged, against the real stack with a key pinned to API version refyne: pytest runs
// test/integration/clients/refyne_sdk, which calls every one of the SDK's 41 methods and checks what comes back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { runPytest } from '../../support/pytest.js';
import { startTestService, type TestService } from '../../support/service.js';

let svc: TestService;
let site: FixtureSite;
let base: string;
let refyneKey: string;
let v1Key: string;
let readKey: string;

const page = (title: string, links: string[]) =>
  html(
    title,
    `<main><h1>${title}</h1><p>Price: 12.5</p><p>${title} is a product page with enough text to extract ` +
      `from.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main>`,
  );

before(async () => {
  svc = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  site = await startFixtureSite();
  site.route('/', page('Home', ['/a', '/b', '/c']));
  for (const p of ['a', 'b', 'c']) site.route(`/${p}`, page(`Item ${p}`, ['/']));
  site.route('/hook', (_req, res) => res.writeHead(204).end());
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
  const tenant = await svc.newTenant('refyne-sdk');
  refyneKey = (await svc.deps.tenants.createKey(tenant.tenantId, 'sdk', { api_version: 'refyne' })).key;
  v1Key = tenant.apiKey;
  readKey = (
    await svc.deps.tenants.createKey(tenant.tenantId, 'read', { api_version: 'refyne', scopes: ['read'] })
  ).key;
});
after(async () => {
  await site?.close();
  await svc?.close();
});

const TESTS_DIR = fileURLToPath(new URL('./refyne_sdk', import.meta.url));

const pytest = (env: Record<string, string>) => runPytest(TESTS_DIR, env, 240_000);

test('the official refyne SDK works unchanged against a key pinned to API version refyne', async (t) => {
  const { code, output } = await pytest({
    REFYNE_SDK_BASE_URL: base,
    REFYNE_SDK_API_KEY: refyneKey,
    REFYNE_SDK_V1_API_KEY: v1Key,
    REFYNE_SDK_READ_API_KEY: readKey,
    FIXTURE_SITE_URL: site.url,
    FAKE_LLM_OPENAI_URL: svc.llm.openaiBaseUrl,
  });
  assert.equal(code, 0, output);
  const summary = /^=*\s*(\S.*?) in [\d.]+s\b/m.exec(output)?.[1] ?? '';
  assert.match(summary, /^\d+ passed$/, output); // nothing failed, skipped or errored
  t.diagnostic(output.slice(output.indexOf('slowest')).trim());
});
