// POST /api/v1/map end to end: the real worker and a local site whose robots.txt names a sitemap index of two
// sitemaps (one gzip content-encoded, one a .xml.gz file), whose pages link to each other, to an external
// site and to a subdomain; and a second site whose sitemaps are a gzip bomb and an oversized file.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { SITEMAP_MAX_BYTES } from '../../../shared/schemas/map.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

let svc: TestService;
let site: FixtureSite;
let hostile: FixtureSite;
/** The site by name (localhost), so that blog.localhost is a subdomain of it. */
let base: string;
let blog: string;

const urlset = (entries: { loc: string; lastmod?: string }[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries
    .map((e) => `<url><loc>${e.loc}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ''}</url>`)
    .join('')}</urlset>`;

function serveSite(s: FixtureSite) {
  s.route('/robots.txt', (_req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/plain' })
      .end(`User-agent: *\nDisallow: /private\n\nSitemap: ${base}/sitemap_index.xml\n`),
  );
  s.route('/sitemap_index.xml', (_req, res) =>
    res
      .writeHead(200, { 'content-type': 'application/xml' })
      .end(
        `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
          `<sitemap><loc>${base}/sitemap-pages.xml</loc></sitemap>` +
          `<sitemap><loc>${base}/sitemap-posts.xml.gz</loc></sitemap></sitemapindex>`,
      ),
  );
  // Sent with gzip content-encoding (undici hands the compressed bytes over as they came).
  const pages = urlset([
    { loc: `${base}/` },
    { loc: `${base}/about`, lastmod: '2026-11-20' },
    { loc: `${base}/products/1?b=2&amp;a=1#reviews` },
    { loc: `${base}/private/secret` },
    { loc: `${blog}/welcome` },
    { loc: 'https://external.example/elsewhere' },
  ]);
  s.route('/sitemap-pages.xml', (_req, res) =>
    res
      .writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' })
      .end(gzipSync(pages)),
  );
  const posts = urlset([
    { loc: `${base}/blog/post-1`, lastmod: '2026-11-21T10:00:00+02:00' },
    { loc: `${base}/blog/post-2` },
    { loc: `${base}/about` },
  ]);
  s.route('/sitemap-posts.xml.gz', (_req, res) =>
    res.writeHead(200, { 'content-type': 'application/x-gzip' }).end(gzipSync(posts)),
  );
  s.route(
    '/',
    html(
      'Home',
      `<a href="/about">About</a> <a href="/contact#team">Contact</a> <a href="/blog/post-1">Post</a>
       <a href="https://external.example/page">Elsewhere</a> <a href="${blog}/from-home">Blog</a>
       <a href="/?utm_source=mail">Home again</a> <a href="mailto:me@example.com">Mail</a>`,
    ),
  );
  s.route('/contact', html('Contact', '<a href="/team">Team</a> <a href="/private/room">Private</a>'));
  s.route('/about', html('About', '<p>About us</p>'));
  s.route('/blog/post-1', html('Post 1', '<p>First</p>'));
}

function serveHostile(s: FixtureSite) {
  const origin = s.url.replace('127.0.0.1', 'localhost');
  s.route('/robots.txt', (_req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/plain' })
      .end(`Sitemap: ${origin}/bomb.xml.gz\nSitemap: ${origin}/huge.xml\nSitemap: ${origin}/fine.xml\n`),
  );
  // ~50 KB on the wire, 60 MiB once inflated.
  const bomb = gzipSync(Buffer.alloc(60 * 1024 * 1024, ' '));
  s.route('/bomb.xml.gz', (_req, res) =>
    res.writeHead(200, { 'content-type': 'application/gzip' }).end(bomb),
  );
  const huge = Buffer.alloc(SITEMAP_MAX_BYTES + 1024, ' ');
  s.route('/huge.xml', (_req, res) => res.writeHead(200, { 'content-type': 'application/xml' }).end(huge));
  s.route('/fine.xml', (_req, res) =>
    res.writeHead(200, { 'content-type': 'application/xml' }).end(urlset([{ loc: `${origin}/kept` }])),
  );
  s.route('/', html('Hostile', '<p>No links</p>'));
}

before(async () => {
  svc = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  site = await startFixtureSite();
  hostile = await startFixtureSite();
  base = site.url.replace('127.0.0.1', 'localhost');
  blog = base.replace('//localhost', '//blog.localhost');
  serveSite(site);
  serveHostile(hostile);
});
after(async () => {
  await site?.close();
  await hostile?.close();
  await svc?.close();
});

interface MapAnswer {
  job_id: string;
  status: string;
  urls: { url: string; source: 'sitemap' | 'links'; lastmod?: string }[];
  total: number;
  truncated: boolean;
  sitemaps_read: number;
  pages_read: number;
  warnings: { url: string; error_category: string; message: string }[];
}

const post = (body: unknown, key?: string) =>
  svc.app.inject({ method: 'POST', url: '/api/v1/map', headers: svc.auth(key), payload: body as object });

async function map(body: Record<string, unknown>): Promise<MapAnswer> {
  const res = await post(body);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const listed = (a: MapAnswer) => a.urls.map((u) => u.url);

describe('POST /api/v1/map', () => {
  test('lists the sitemap URLs (index, gzip, .xml.gz) then the linked pages, normalised, on the site', async () => {
    const a = await map({ url: `${base}/` });
    assert.equal(a.status, 'completed');
    assert.deepEqual(listed(a), [
      base,
      `${base}/about`,
      `${base}/products/1?a=1&b=2`,
      `${base}/blog/post-1`,
      `${base}/blog/post-2`,
      `${base}/contact`,
      `${base}/team`,
    ]);
    const bySource = Object.fromEntries(a.urls.map((u) => [u.url, u]));
    assert.equal(bySource[`${base}/about`]?.source, 'sitemap');
    assert.equal(bySource[`${base}/about`]?.lastmod, '2026-11-20T00:00:00.000Z');
    assert.equal(bySource[`${base}/blog/post-1`]?.lastmod, '2026-11-21T08:00:00.000Z');
    assert.equal(bySource[`${base}/contact`]?.source, 'links');
    assert.equal(a.total, 7);
    assert.equal(a.truncated, false);
    assert.equal(a.sitemaps_read, 3);
    assert.deepEqual(a.warnings, []);
    // The job like any other: type map, its one result holding the same URLs.
    const job = (await svc.app.inject({ url: `/api/v1/jobs/${a.job_id}`, headers: svc.auth() })).json();
    assert.equal(job.type, 'map');
    assert.equal(job.status, 'completed');
    assert.equal(job.pages_by_source.model, 0);
    const results = (
      await svc.app.inject({ url: `/api/v1/jobs/${a.job_id}/results`, headers: svc.auth() })
    ).json();
    assert.deepEqual(
      results[0].data.urls.map((u: { url: string }) => u.url),
      listed(a),
    );
    // robots.txt is respected: the disallowed page was neither listed nor fetched.
    assert.ok(!site.hits.some((h) => h.startsWith('/private')));
  });

  test('limit bounds the list and says it was truncated', async () => {
    const a = await map({ url: `${base}/`, limit: 3 });
    assert.deepEqual(listed(a), [base, `${base}/about`, `${base}/products/1?a=1&b=2`]);
    assert.equal(a.truncated, true);
  });

  test('search keeps URLs holding every word; ignore_query drops queries', async () => {
    assert.deepEqual(listed(await map({ url: `${base}/`, search: 'BLOG post' })), [
      `${base}/blog/post-1`,
      `${base}/blog/post-2`,
    ]);
    const noQuery = await map({ url: `${base}/`, search: 'products', ignore_query: true });
    assert.deepEqual(listed(noQuery), [`${base}/products/1`]);
  });

  test('include_subdomains adds subdomain URLs, never external ones; use_sitemap false walks links only', async () => {
    const a = await map({ url: `${base}/`, include_subdomains: true });
    assert.ok(listed(a).includes(`${blog}/welcome`));
    assert.ok(listed(a).includes(`${blog}/from-home`));
    assert.ok(!listed(a).some((u) => u.includes('external.example')));
    const linksOnly = await map({ url: `${base}/`, use_sitemap: false });
    assert.equal(linksOnly.sitemaps_read, 0);
    assert.ok(linksOnly.urls.every((u) => u.source === 'links'));
    assert.deepEqual(listed(linksOnly), [
      base,
      `${base}/about`,
      `${base}/contact`,
      `${base}/blog/post-1`,
      `${base}/team`,
    ]);
  });

  test('a gzip bomb and an oversized sitemap are skipped as content_too_large; the rest is listed', async () => {
    const origin = hostile.url.replace('127.0.0.1', 'localhost');
    const a = await map({ url: `${origin}/` });
    assert.deepEqual(listed(a), [`${origin}/kept`, origin]);
    const warned = Object.fromEntries(a.warnings.map((w) => [w.url, w]));
    assert.equal(warned[`${origin}/bomb.xml.gz`]?.error_category, 'content_too_large');
    assert.match(warned[`${origin}/bomb.xml.gz`]?.message ?? '', /decompresses to more than/);
    assert.equal(warned[`${origin}/huge.xml`]?.error_category, 'content_too_large');
  });

  test('nothing found and the start page failed: the job fails as that page did', async () => {
    const res = await post({ url: `${base}/missing`, use_sitemap: false });
    assert.equal(res.statusCode, 502, res.body);
    const problem = res.json();
    assert.equal(problem.error_category, 'http_status');
    const job = (await svc.app.inject({ url: `/api/v1/jobs/${problem.job_id}`, headers: svc.auth() })).json();
    assert.equal(job.status, 'failed');
  });

  test('authenticated, validated, rate-limited, and another tenant cannot see the job', async () => {
    assert.equal(
      (await svc.app.inject({ method: 'POST', url: '/api/v1/map', payload: { url: base } })).statusCode,
      401,
    );
    for (const bad of [
      { url: base, limit: 0 },
      { url: base, limit: 10_001 },
      { url: 'ftp://x' },
      { url: base, x: 1 },
    ]) {
      const res = await post(bad);
      assert.equal(res.statusCode, 422, JSON.stringify(bad));
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    }
    const a = await map({ url: `${base}/`, limit: 1 });
    const other = await svc.newTenant('tenant-map-other');
    const peek = await svc.app.inject({ url: `/api/v1/jobs/${a.job_id}`, headers: svc.auth(other.apiKey) });
    assert.equal(peek.statusCode, 404);
    const limited = await svc.newTenant('tenant-map-limited');
    await svc.deps.tenants.setRateLimit(limited.tenantId, 2);
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) codes.push((await post({ url: base, limit: 0 }, limited.apiKey)).statusCode);
    assert.deepEqual(codes, [422, 422, 429]);
  });
});
