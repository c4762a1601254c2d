// Screenshots with the real Chromium and the fake model: formats ["screenshot"] stores a PNG
// of the viewport, read back at GET /jobs/{id}/pages/{page_id}/screenshot (a real PNG: its signature and IHDR
// size); another tenant gets a 404, as does a screenshot the page did not take; a screenshot action inside a
// list of actions, full page and cut at the height bound; a crawl's pages list theirs in the results; static
// with a screenshot is a 422.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { MAX_SCREENSHOT_HEIGHT } from '../../../shared/schemas/actions.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}`;

const PRODUCT = html('Lamp', '<h1>Desk lamp</h1><p>A brass desk lamp, 49.00 EUR.</p>');
// Taller than the bound: a full-page shot is cut; a button that reveals more first.
const TALL = html(
  'Tall',
  `<h1>Tall page</h1><div style="height:${MAX_SCREENSHOT_HEIGHT + 4000}px">Filler</div>
  <button id="more">Load more</button><ul id="list"></ul><script>
    document.getElementById('more').addEventListener('click', () => {
      const li = document.createElement('li'); li.textContent = 'Extra item';
      document.getElementById('list').appendChild(li);
    });
  </script>`,
);

let site: FixtureSite;
let svc: TestService;

before(async () => {
  site = await startFixtureSite();
  site.route('/lamp', PRODUCT);
  site.route('/tall', TALL);
  if (!skip) svc = await startTestService({ env: { DYNAMIC_WAIT_MS: '500', CHROMIUM_PATH: CHROMIUM } });
});
after(async () => {
  await svc?.close();
  await site?.close();
});

const extract = (payload: Record<string, unknown>) =>
  svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { schema: { title: 'string' }, ...payload },
  });

const get = (url: string, key?: string) => svc.app.inject({ method: 'GET', url, headers: svc.auth(key) });

/** Width and height from the IHDR chunk, after checking the PNG signature. */
function pngSize(body: Buffer) {
  assert.deepEqual([...body.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'not a PNG');
  assert.equal(body.toString('latin1', 12, 16), 'IHDR');
  return { width: body.readUInt32BE(16), height: body.readUInt32BE(20) };
}

describe('screenshots', { skip }, () => {
  test('formats ["screenshot"]: a PNG of the viewport, served to its tenant only', async () => {
    const res = await extract({ url: `${site.url}/lamp`, formats: ['screenshot'] });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.metadata.fetch_mode, 'dynamic'); // auto with a screenshot renders
    const [shot, ...more] = body.metadata.screenshots;
    assert.equal(more.length, 0, res.body);
    assert.equal(shot.index, 0);
    assert.deepEqual([shot.width, shot.height, shot.full_page, shot.clipped], [1280, 900, false, false]);

    const png = await get(shot.url);
    assert.equal(png.statusCode, 200, png.body);
    assert.equal(png.headers['content-type'], 'image/png');
    assert.equal(png.rawPayload.length, shot.bytes);
    assert.deepEqual(pngSize(png.rawPayload), { width: 1280, height: 900 });

    // The results list the same screenshot under the page's id, the page_id of the route.
    const results = await get(`/api/v1/jobs/${body.job_id}/results`);
    const [page] = results.json();
    assert.equal(page.screenshots[0].url, shot.url);
    assert.ok(shot.url.includes(`/pages/${page.id}/screenshot`), shot.url);

    const other = await svc.newTenant(`other-${Date.now()}`);
    const foreign = await get(shot.url, other.apiKey);
    assert.equal(foreign.statusCode, 404, foreign.body);
    assert.match(String(foreign.headers['content-type']), /application\/problem\+json/);
    assert.ok(!foreign.rawPayload.subarray(0, 8).equals(png.rawPayload.subarray(0, 8)));

    const none = await get(shot.url.replace('index=0', 'index=1'));
    assert.equal(none.statusCode, 404, none.body);
    assert.match(String(none.headers['content-type']), /application\/problem\+json/);
    const unknownPage = await get(`/api/v1/jobs/${body.job_id}/pages/nope/screenshot`);
    assert.equal(unknownPage.statusCode, 404, unknownPage.body);
  });

  test('a screenshot action inside a list of actions; full page is cut at the height bound', async () => {
    const res = await extract({
      url: `${site.url}/tall`,
      actions: [
        { kind: 'screenshot' },
        { kind: 'click', selector: '#more', wait_after_ms: 100 },
        { kind: 'screenshot', full_page: true },
      ],
    });
    assert.equal(res.statusCode, 200, res.body);
    const { actions, screenshots } = res.json().metadata;
    assert.deepEqual(
      actions.map((a: { kind: string; ok: boolean }) => [a.kind, a.ok]),
      [
        ['screenshot', true],
        ['click', true],
        ['screenshot', true],
      ],
    );
    assert.deepEqual(
      screenshots.map((s: { index: number; full_page: boolean; clipped: boolean; height: number }) => [
        s.index,
        s.full_page,
        s.clipped,
        s.height,
      ]),
      [
        [0, false, false, 900],
        [1, true, true, MAX_SCREENSHOT_HEIGHT],
      ],
    );
    const full = await get(screenshots[1].url);
    assert.equal(full.statusCode, 200, full.body);
    assert.deepEqual(pngSize(full.rawPayload), { width: 1280, height: MAX_SCREENSHOT_HEIGHT });
  });

  test('a crawl with formats ["screenshot"]: each page result lists its screenshot, served as a PNG', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/crawl?wait=true&timeout=120',
      headers: svc.auth(),
      payload: {
        url: `${site.url}/lamp`,
        schema: { title: 'string' },
        options: { max_pages: 1, max_depth: 0 },
        formats: ['screenshot_full_page'],
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const results = await get(`/api/v1/jobs/${res.json().job_id}/results`);
    const [page] = results.json();
    assert.equal(page.status, 'completed', results.body);
    const [shot] = page.screenshots;
    assert.deepEqual([shot.full_page, shot.clipped, shot.width], [true, false, 1280]);
    const png = await get(shot.url);
    assert.equal(png.statusCode, 200, png.body);
    assert.deepEqual(pngSize(png.rawPayload), { width: 1280, height: shot.height });
  });

  test("a stored site's crawl takes formats too (static with it is a 422)", async () => {
    const created = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/sites',
      headers: svc.auth(),
      payload: { url: `${site.url}/lamp`, crawl_options: { max_pages: 1, max_depth: 0 } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const crawl = (payload: Record<string, unknown>) =>
      svc.app.inject({
        method: 'POST',
        url: `/api/v1/sites/${created.json().id}/crawl?wait=true&timeout=120`,
        headers: svc.auth(),
        payload: { schema: { title: 'string' }, ...payload },
      });
    const refused = await crawl({ fetch_mode: 'static', formats: ['screenshot'] });
    assert.equal(refused.statusCode, 422, refused.body);
    assert.match(refused.body, /body\.formats/);
    const res = await crawl({ formats: ['screenshot'] });
    assert.equal(res.statusCode, 200, res.body);
    const [page] = (await get(`/api/v1/jobs/${res.json().job_id}/results`)).json();
    assert.equal(page.screenshots?.length, 1, JSON.stringify(page));
  });

  test('a screenshot with fetch_mode static is a 422 naming body.formats', async () => {
    const res = await extract({ url: `${site.url}/lamp`, fetch_mode: 'static', formats: ['screenshot'] });
    assert.equal(res.statusCode, 422, res.body);
    assert.match(res.body, /body\.formats/);
  });
});
