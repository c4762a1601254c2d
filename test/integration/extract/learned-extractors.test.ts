// Learned extractors: after the model has answered a few pages of one template, selectors learned
// from its answers extract the rest without it; sampled checks catch a template that changed under the same
// structure, invalidate the extractor and re-do the pages it answered since its last check.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { load } from 'cheerio';
import { structureSketch } from '../../../activities/reading/learned/structure.js';
import { waitForJobEnd } from '../../support/crawl-jobs.js';
import { type FixtureSite, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

interface Product {
  name: string;
  brand: string;
  price: number;
  sku: string;
  in_stock: boolean;
}

const ITEMS = 30;
const BRANDS = ['Acme', 'Globex', 'Initech'];
const truth = (k: number): Product => ({
  name: `Product ${['Kettle', 'Toaster', 'Lamp', 'Chair', 'Desk'][k % 5]} ${k}`,
  brand: BRANDS[k % 3] as string,
  price: Math.round((5 + k * 3.75) * 100) / 100,
  sku: `SK-${100 + k}`,
  in_stock: k % 4 !== 0,
});

/** From this item on, the shop shows the brand where the name was and the name where the brand was. */
let swapFrom = Number.POSITIVE_INFINITY;

function productPage(k: number): string {
  const p = truth(k);
  const swapped = k >= swapFrom;
  return `<!doctype html><html><head><title>${p.name} | Shop</title></head><body>
    <header class="top"><nav><a href="/shop">Shop</a> <a href="/about">About</a></nav></header>
    <main class="product">
      <h1 class="title">${swapped ? p.brand : p.name}</h1>
      <p class="maker">${swapped ? p.name : p.brand}</p>
      <div class="buy"><span class="price">$${p.price.toFixed(2)}</span></div>
      <p class="sku">SKU: ${p.sku}</p>
      <p class="stock">${p.in_stock ? 'In stock' : 'Out of stock'}</p>
      ${'<p class="text">A fine thing for every home.</p>'.repeat(1 + (k % 3))}
    </main><footer>© Shop</footer></body></html>`;
}

const listing = () =>
  `<!doctype html><html><head><title>Shop</title></head><body><h1>All products</h1><ul>${Array.from(
    { length: ITEMS },
    (_, i) => `<li><a class="item" href="/p/${i + 1}">Item ${i + 1}</a></li>`,
  ).join('')}</ul></body></html>`;

/** Listing pages of cards, each linking the next listing: a list of objects per page. */
const LISTINGS = 8;
const cards = (n: number) =>
  Array.from({ length: 3 + (n % 4) }, (_, i) => {
    const k = n * 10 + i;
    return { title: `Lamp ${k}`, price: 20 + k, url: `${site.url}/p/${(k % ITEMS) + 1}?from=${n}` };
  });
const listingPage = (n: number) =>
  `<!doctype html><html><head><title>Lamps ${n}</title></head><body><h1>Lamps, page ${n}</h1><ul class="grid">${cards(
    n,
  )
    .map(
      (c) =>
        `<li class="card"><a class="link" href="${new URL(c.url).pathname}${new URL(c.url).search}">` +
        `<span class="name">${c.title}</span></a><p class="cost">€${c.price.toFixed(2)}</p></li>`,
    )
    .join('')}</ul>${n < LISTINGS ? `<a class="next" href="/list/${n + 1}">Next</a>` : ''}</body></html>`;

/** Pages whose `note` sits somewhere else on each (no selector holds it): the model is asked for it alone. */
const NOTE_PLACES = ['aside.n-a', 'div.n-b', 'section.n-c', 'blockquote.n-d', 'p.n-e'];
const noteOf = (k: number) => `Note for item ${k}`;
function notePage(k: number): string {
  const p = truth(k);
  const [tag, cls] = (NOTE_PLACES[k % NOTE_PLACES.length] as string).split('.');
  const note = `<${tag} class="${cls}">${noteOf(k)}</${tag}>`;
  return `<!doctype html><html><head><title>${p.name}</title></head><body>
    <main class="product">${k % 2 ? note : ''}<h1 class="title">${p.name}</h1>
      <div class="buy"><span class="price">$${p.price.toFixed(2)}</span></div>${k % 2 ? '' : note}
    </main></body></html>`;
}

let svc: TestService;
let site: FixtureSite;
/** The properties each model request asked for, by page path. */
const asked: { path: string; properties: string[] }[] = [];
const SCHEMA = { name: 'string', brand: 'string', price: 'number', sku: 'string', in_stock: 'boolean' };
const CHECK_EVERY = 4;

before(async () => {
  site = await startFixtureSite();
  site.route('/shop', listing());
  for (let n = 1; n <= LISTINGS; n++)
    site.route(`/list/${n}`, (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(listingPage(n)),
    );
  for (let k = 1; k <= ITEMS; k++) {
    site.route(`/p/${k}`, (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(productPage(k)),
    );
    site.route(`/q/${k}`, (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(notePage(k)),
    );
  }
  site.route(
    '/qshop',
    `<!doctype html><html><body><ul>${Array.from(
      { length: ITEMS },
      (_, i) => `<li><a class="q" href="/q/${i + 1}">Item ${i + 1}</a></li>`,
    ).join('')}</ul></body></html>`,
  );
  svc = await startTestService({
    env: { LEARNED_CHECK_EVERY: String(CHECK_EVERY), RATE_LIMIT_PER_MINUTE: '100000' },
    // The model answers every page correctly: each item's truth, the listing's nulls.
    llm: {
      respond: ({ userText, properties }) => {
        const path = /Page URL: \S+?:\d+(\/\S*)/.exec(userText)?.[1];
        if (path) asked.push({ path, properties });
        const q = /Page URL: \S+\/q\/(\d+)/.exec(userText)?.[1];
        if (q) return { name: truth(Number(q)).name, price: truth(Number(q)).price, note: noteOf(Number(q)) };
        const n = /Page URL: \S+\/list\/(\d+)/.exec(userText)?.[1];
        if (n) return { items: cards(Number(n)) };
        const k = /Page URL: \S+\/p\/(\d+)/.exec(userText)?.[1];
        if (k) return { ...truth(Number(k)) };
        return { name: null, brand: null, price: null, sku: null, in_stock: null };
      },
    },
  });
});
after(async () => {
  await site?.close();
  await svc?.close();
});
beforeEach(() => {
  svc.llm.reset();
  asked.length = 0;
  swapFrom = Number.POSITIVE_INFINITY;
});

const api = async (method: 'GET' | 'POST', url: string, payload?: object) => {
  const res = await svc.app.inject({ method, url, headers: svc.auth(), ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: res.json() };
};

async function crawl(path: string, extra: object = {}) {
  const started = await api('POST', path, {
    ...(path === '/api/v1/crawl' ? { url: `${site.url}/shop` } : {}),
    schema: SCHEMA,
    options: { follow_selector: 'a.item', max_depth: 1, concurrency: 1, respect_robots: false },
    ...extra,
  });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const job = await waitForJobEnd(svc, started.body.job_id, 90_000);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  const results = (await api('GET', `/api/v1/jobs/${job.id}/results?include_provenance=true`)).body as {
    url: string;
    status: string;
    data: Record<string, unknown>;
    provenance: Record<string, { source: string; selector?: string; in_page?: boolean; offset?: number }>;
  }[];
  return { job, results };
}

/** The item pages the model was asked about. */
const modelItemCalls = () =>
  svc.llm.requests.filter((r) => /Page URL: \S+\/p\/\d+/.test(JSON.stringify(r.body))).length;

function assertEveryItemRight(results: Awaited<ReturnType<typeof crawl>>['results']) {
  const items = results.filter((r) => /\/p\/\d+$/.test(r.url));
  assert.equal(items.length, ITEMS, 'one result per item page');
  for (const r of items) {
    const k = Number(/\/p\/(\d+)$/.exec(r.url)?.[1]);
    assert.deepEqual(r.data, { ...truth(k) }, `item ${k}`);
  }
}

describe('learned extractors', () => {
  test('a crawl learns its item template from the model and extracts the rest without it', async () => {
    const { job, results } = await crawl('/api/v1/crawl');
    assertEveryItemRight(results);
    const learned = results.filter((r) => r.provenance?.name?.source === 'learned_extractor');
    // Four model pages learn and verify; then one check every CHECK_EVERY pages asked of the extractor.
    assert.ok(learned.length >= 18, `only ${learned.length} pages answered by the extractor`);
    assert.equal(modelItemCalls(), ITEMS - learned.length);
    assert.equal(job.pages_by_source.learned_extractor, learned.length);
    assert.equal(job.page_count, ITEMS + 1);
    // Provenance: the selector read, and for the model's values where the page shows them.
    const one = learned[0];
    assert.ok(one?.provenance.price?.selector, JSON.stringify(one?.provenance));
    const byModel = results.find((r) => /\/p\/1$/.test(r.url));
    assert.equal(byModel?.provenance.name?.source, 'model');
    assert.equal(byModel?.provenance.name?.in_page, true);
    assert.equal(typeof byModel?.provenance.price?.offset, 'number');
    assert.equal(byModel?.provenance.in_stock?.in_page, null);
    assert.equal(job.values_by_source.learned_extractor, learned.length * 5);
    assert.equal(job.values_by_source.model_not_in_page, 0);
    const map = (await api('GET', `/api/v1/jobs/${job.id}/crawl-map`)).body;
    const bySource = (source: string) =>
      map.entries.filter((e: { data_source: string | null }) => e.data_source === source).length;
    assert.equal(bySource('learned_extractor'), learned.length);
    assert.equal(bySource('model'), ITEMS + 1 - learned.length);
    // Which answered pages are kept for re-doing (ANSWERS_KEPT_BEHIND) is test/pipeline/learned-answers.test.ts's.
  });

  test('a listing template: its items are read from the repeated cards once learned', async () => {
    const started = await api('POST', '/api/v1/crawl', {
      url: `${site.url}/list/1`,
      schema: { items: [{ title: 'string', price: 'number', url: 'string' }] },
      options: {
        next_selector: 'a.next',
        max_depth: 0,
        max_pages: LISTINGS,
        concurrency: 1,
        respect_robots: false,
      },
    });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const job = await waitForJobEnd(svc, started.body.job_id, 90_000);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    const results = (await api('GET', `/api/v1/jobs/${job.id}/results?include_provenance=true`)).body as {
      url: string;
      data: unknown;
      provenance: Record<string, { source: string; selector?: string }>;
    }[];
    assert.equal(results.length, LISTINGS);
    for (const r of results) {
      const n = Number(/\/list\/(\d+)$/.exec(r.url)?.[1]);
      assert.deepEqual(r.data, { items: cards(n) }, r.url);
    }
    const learned = results.filter((r) => r.provenance.items?.source === 'learned_extractor');
    assert.ok(learned.length >= 3, `${learned.length} listings read by the extractor`);
    assert.match(learned[0]?.provenance.items?.selector ?? '', /li\.card/);
  });

  test('a field no selector holds goes to the model alone; the extractor answers the others on the same page', async () => {
    const started = await api('POST', '/api/v1/crawl', {
      url: `${site.url}/qshop`,
      schema: { name: 'string', price: 'number', note: 'string' },
      options: { follow_selector: 'a.q', max_depth: 1, concurrency: 1, respect_robots: false },
    });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const job = await waitForJobEnd(svc, started.body.job_id, 90_000);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    const results = (await api('GET', `/api/v1/jobs/${job.id}/results?include_provenance=true`)).body as {
      url: string;
      data: Record<string, unknown>;
      provenance: Record<string, { source: string }>;
    }[];
    const items = results.filter((r) => /\/q\/\d+$/.test(r.url));
    assert.equal(items.length, ITEMS);
    for (const r of items) {
      const k = Number(/\/q\/(\d+)$/.exec(r.url)?.[1]);
      assert.deepEqual(r.data, { name: truth(k).name, price: truth(k).price, note: noteOf(k) }, r.url);
    }
    const partial = items.filter((r) => r.provenance.name?.source === 'learned_extractor');
    // Four pages teach the template; the job's first page asked of it and every CHECK_EVERY-th are checks.
    const floor = ITEMS - 4 - 1 - Math.ceil(ITEMS / CHECK_EVERY);
    assert.ok(partial.length >= floor, `${partial.length} pages with the extractor's name`);
    for (const r of partial) {
      assert.equal(r.provenance.price?.source, 'learned_extractor', r.url);
      assert.equal(r.provenance.note?.source, 'model', r.url);
    }
    // Those pages' model calls asked for the note alone.
    const noteOnly = asked.filter((a) => a.path.startsWith('/q/') && a.properties.join() === 'note');
    assert.equal(noteOnly.length, partial.length);
    assert.ok(job.pages_by_source.mixed >= partial.length, JSON.stringify(job.pages_by_source));
  });

  test('a shape index: pages alike share a template, another structure makes another, a scope lists them by page', async () => {
    const store = svc.deps.learned;
    const key = {
      tenantId: svc.tenantId,
      scope: 'job:index-test',
      schemaHash: 'h',
      urlShape: 'shop.test/p/:v',
    };
    const sketchOf = (html: string) => structureSketch(load(html));
    const product = sketchOf(productPage(3));
    const t1 = await store.assign(key, product);
    assert.equal(await store.assign(key, sketchOf(productPage(4))), t1);
    const t2 = await store.assign(key, sketchOf(listingPage(2)));
    assert.ok(t1 && t2 && t1 !== t2, `${t1} ${t2}`);
    assert.equal((await store.shape(key))?.templates.length, 2);
    await store.lease({ ...key, template: t1 }, product, 'page-1', 60_000);
    await store.lease({ ...key, template: t2 }, product, 'page-2', 60_000);
    const first = await store.listForScope(svc.tenantId, key.scope, { limit: 1, offset: 0 });
    assert.equal(first.total, 2);
    assert.deepEqual(
      first.records.map((r) => r.template),
      [t1],
    );
    assert.equal(await store.deleteForScope(svc.tenantId, key.scope), 2);
    assert.equal(await store.shape(key), null);
    assert.equal((await store.listForScope(svc.tenantId, key.scope, { limit: 10, offset: 0 })).total, 0);
  });

  test('learn_extractors: false sends every page to the model', async () => {
    const { job, results } = await crawl('/api/v1/crawl', { learn_extractors: false });
    assertEveryItemRight(results);
    assert.equal(modelItemCalls(), ITEMS);
    assert.equal(job.pages_by_source.learned_extractor, 0);
  });

  test('pages in batches (several at once): a template that changes half-way has every page re-done that its extractor answered, in whatever order they were numbered', async () => {
    swapFrom = 17;
    const { job, results } = await crawl('/api/v1/crawl', {
      options: { follow_selector: 'a.item', max_depth: 1, concurrency: 8, respect_robots: false },
    });
    assertEveryItemRight(results);
    assert.equal(job.page_count, ITEMS + 1, 'a re-done page replaces its result');
    // Which answered pages are kept for re-doing (ANSWERS_KEPT_BEHIND) is test/pipeline/learned-answers.test.ts's.
  });

  test('a template that changes half-way under the same structure: the check invalidates the extractor, the pages since the last check are re-done', async () => {
    const created = await api('POST', '/api/v1/sites', { url: `${site.url}/shop` });
    assert.equal(created.status, 201);
    const siteId = created.body.id as string;
    // With one page at a time the item pages are asked of the extractor in order from item 5: items 8, 12,
    // 16 are checks; items 17-19 are answered wrongly, then item 20's check fails.
    swapFrom = 17;
    const { job, results } = await crawl(`/api/v1/sites/${siteId}/crawl`);
    assertEveryItemRight(results);
    assert.equal(job.page_count, ITEMS + 1, 'a re-done page replaces its result');
    const revised = results.filter((r) => /\/p\/(17|18|19)$/.test(r.url));
    for (const r of revised) assert.equal(r.provenance.name?.source, 'model', r.url);
    const { body } = await api('GET', `/api/v1/sites/${siteId}/extractors`);
    // Paged: one template per page of the list, all of them counted.
    const paged = await api('GET', `/api/v1/sites/${siteId}/extractors?limit=1&offset=1`);
    assert.equal(paged.body.extractors.length, 1);
    assert.equal(paged.body.total, body.total);
    assert.ok(body.total >= 2, JSON.stringify(body.total));
    const items = body.extractors.find((e: { url_shape: string }) => e.url_shape.endsWith('/p/:v'));
    assert.equal(items.invalidations, 1, JSON.stringify(items));
    assert.equal(items.status, 'verified');
    assert.match(items.reason ?? '', /disagreed/);
    assert.ok(items.fields.name[0].selector, 'the selectors are shown');

    // The next crawl of the site (now all of the new layout) keeps the extractor: its first page is a check,
    // then the extractor answers.
    swapFrom = 0;
    svc.llm.reset();
    const again = await crawl(`/api/v1/sites/${siteId}/crawl`);
    assertEveryItemRight(again.results);
    assert.ok(modelItemCalls() <= 1 + Math.ceil(ITEMS / CHECK_EVERY), `${modelItemCalls()} model calls`);
    const turnedOff = await api('POST', `/api/v1/sites/${siteId}/crawl`, {
      learn_extractors: false,
      schema: SCHEMA,
    });
    assert.equal(turnedOff.status, 202);
  });
});
