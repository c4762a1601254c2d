// Page actions in dynamic mode, through POST /extract with the real Chromium and the fake model: a listing
// that needs three "Load more" clicks and an infinite-scroll list reach the model whole; a click on a missing
// selector fails the page as action_failed naming the step, within its timeout; static with actions is a 422.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}`;

const item = (n: number) => `Gadget number ${String(n).padStart(2, '0')}`;

// Four items; each click on "Load more" appends four more; after the third click the button is gone.
const LISTING = html(
  'Listing',
  `<h1>Gadgets</h1><ul id="list"></ul><button id="more">Load more</button><script>
    let shown = 0, clicks = 0;
    const add = (k) => { for (let i = 0; i < k; i++) {
      const li = document.createElement('li'); shown++;
      li.textContent = 'Gadget number ' + String(shown).padStart(2, '0');
      document.getElementById('list').appendChild(li);
    } };
    add(4);
    document.getElementById('more').addEventListener('click', () => {
      setTimeout(() => { add(4); if (++clicks === 3) document.getElementById('more').remove(); }, 50);
    });
  </script>`,
);

// Five tall items; reaching the bottom appends five more, up to twenty.
const INFINITE = html(
  'Feed',
  `<h1>Feed</h1><div id="feed"></div><script>
    let shown = 0;
    const add = () => { for (let i = 0; i < 5; i++) {
      const d = document.createElement('div'); shown++; d.style.height = '400px';
      d.textContent = 'Gadget number ' + String(shown).padStart(2, '0');
      document.getElementById('feed').appendChild(d);
    } };
    add();
    window.addEventListener('scroll', () => {
      const atBottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 10;
      if (atBottom && shown < 20) setTimeout(add, 50);
    });
  </script>`,
);

// A search form: results appear once something is typed, a size chosen and Enter pressed; the page never
// shows what was typed.
const SEARCH = html(
  'Search',
  `<h1>Search</h1><input id="q"><select id="size"><option value="S">S</option><option value="L">L</option></select>
  <div id="out"></div><script>
    document.getElementById('q').addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' || !e.target.value) return;
      const size = document.getElementById('size').value;
      setTimeout(() => {
        document.getElementById('out').innerHTML = '<p id="results">Found 3 gadgets in size ' + size + '</p>';
      }, 100);
    });
  </script>`,
);
const TYPED = 'hunter2-private-query';

let site: FixtureSite;
let svc: TestService;

before(async () => {
  site = await startFixtureSite();
  site.route('/listing', LISTING);
  site.route('/feed', INFINITE);
  site.route('/search', SEARCH);
  if (!skip) svc = await startTestService({ env: { DYNAMIC_WAIT_MS: '1000', CHROMIUM_PATH: CHROMIUM } });
});
after(async () => {
  await svc?.close();
  await site?.close();
});

async function extract(payload: Record<string, unknown>) {
  return svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { schema: { names: 'string[]' }, ...payload },
  });
}

/** Everything the model was sent since the last reset. */
const sentToModel = () => JSON.stringify(svc.llm.requests.map((r) => r.body));

describe('page actions (dynamic mode)', { skip }, () => {
  test('"Load more" clicked until it is gone: all 16 items reach the model', async () => {
    svc.llm.reset();
    const res = await extract({
      url: `${site.url}/listing`,
      actions: [{ kind: 'click', selector: '#more', repeat: true, max: 10, wait_after_ms: 300 }],
    });
    assert.equal(res.statusCode, 200, res.body);
    const sent = sentToModel();
    for (const n of [1, 4, 5, 12, 16]) assert.ok(sent.includes(item(n)), `${item(n)} not sent`);
    const body = res.json();
    assert.equal(body.metadata.fetch_mode, 'dynamic'); // auto with actions renders
    assert.deepEqual(
      body.metadata.actions.map((a: { kind: string; ok: boolean; clicks: number }) => [
        a.kind,
        a.ok,
        a.clicks,
      ]),
      [['click', true, 3]],
    );
  });

  test('"Load more" with item_selector stops at max_items', async () => {
    svc.llm.reset();
    const res = await extract({
      url: `${site.url}/listing`,
      actions: [
        {
          kind: 'click',
          selector: '#more',
          repeat: true,
          max: 10,
          wait_after_ms: 300,
          item_selector: '#list > li',
          max_items: 8,
        },
      ],
    });
    assert.equal(res.statusCode, 200, res.body);
    const [click] = res.json().metadata.actions;
    assert.deepEqual([click.clicks, click.items], [1, 8], res.body);
    assert.ok(sentToModel().includes(item(8)) && !sentToModel().includes(item(9)), 'loaded past max_items');
  });

  test('infinite scroll until no new content: all 20 items reach the model', async () => {
    svc.llm.reset();
    const res = await extract({
      url: `${site.url}/feed`,
      fetch_mode: 'dynamic',
      actions: [{ kind: 'scroll', until_no_new_content: true, max_scrolls: 10, wait_after_ms: 800 }],
    });
    assert.equal(res.statusCode, 200, res.body);
    const sent = sentToModel();
    for (const n of [1, 5, 6, 15, 20]) assert.ok(sent.includes(item(n)), `${item(n)} not sent`);
    assert.ok(res.json().metadata.actions[0].scrolls >= 3, res.body);
  });

  test('a click on a missing selector fails the page naming the step, within its timeout', async () => {
    svc.llm.reset();
    const started = Date.now();
    const res = await extract({
      url: `${site.url}/listing`,
      fetch_mode: 'dynamic',
      actions: [
        { kind: 'wait', ms: 10 },
        { kind: 'click', selector: '#nowhere', timeout_ms: 1000 },
      ],
    });
    assert.equal(res.statusCode, 422, res.body);
    const problem = res.json();
    assert.equal(problem.error_category, 'action_failed', res.body);
    assert.match(res.body, /action 1 \(click #nowhere\): selector not found within 1000 ms/);
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    assert.equal(svc.llm.requests.length, 0, 'the model was asked about a failed page');
  });

  test('type, select, press and wait: the outcomes are captured, the typed text only as its length', async () => {
    svc.llm.reset();
    const res = await extract({
      url: `${site.url}/search`,
      capture_debug: true,
      actions: [
        { kind: 'type', selector: '#q', text: TYPED },
        { kind: 'select', selector: '#size', value: 'L' },
        { kind: 'press', key: 'Enter' },
        { kind: 'wait', selector: '#results' },
      ],
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(sentToModel().includes('Found 3 gadgets in size L'), sentToModel());
    const outcomes = res.json().metadata.actions;
    assert.deepEqual(
      outcomes.map((a: { kind: string; ok: boolean }) => [a.kind, a.ok]),
      [
        ['type', true],
        ['select', true],
        ['press', true],
        ['wait', true],
      ],
    );
    assert.equal(outcomes[0].text_length, TYPED.length);
    const debug = await svc.app.inject({
      method: 'GET',
      url: `/api/v1/jobs/${res.json().job_id}/debug-capture`,
      headers: svc.auth(),
    });
    assert.equal(debug.statusCode, 200, debug.body);
    assert.equal(debug.json().captures[0].request.actions[0].text_length, TYPED.length);
    assert.ok(!debug.body.includes(TYPED), 'the typed text is in the debug capture');
    assert.ok(!res.body.includes(TYPED), 'the typed text is in the response');
  });

  test('a crawl runs the actions on its pages', async () => {
    svc.llm.reset();
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/crawl?wait=true&timeout=120',
      headers: svc.auth(),
      payload: {
        url: `${site.url}/listing`,
        schema: { names: 'string[]' },
        options: { max_pages: 1, max_depth: 0 },
        actions: [{ kind: 'click', selector: '#more', repeat: true, wait_after_ms: 300 }],
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().status, 'completed', res.body);
    assert.ok(sentToModel().includes(item(16)), `${item(16)} not sent`);
  });

  test('static with actions is a 422 naming body.actions', async () => {
    const res = await extract({
      url: `${site.url}/listing`,
      fetch_mode: 'static',
      actions: [{ kind: 'click', selector: '#more' }],
    });
    assert.equal(res.statusCode, 422, res.body);
    assert.match(res.body, /actions/);
    assert.match(res.body, /dynamic/);
  });
});
