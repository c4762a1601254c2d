// The MCP server through the SDK's own client, over both transports: Streamable HTTP at /mcp on a listening
// service, and stdio (the entry module spawned with the service's URL and a key). Same tools, same answers.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  boundedPage,
  jsonResult,
  MAX_RESULTS_CHARS,
  MAX_RESULTS_PER_CALL,
  MAX_TOOL_OUTPUT_CHARS,
} from '../../../api/mcp/output.js';
import { startAnalyzeSite } from '../../support/analyze-site.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';
import { type ShopSite, startShopSite } from '../../support/shop-site.js';

let svc: TestService;
let base: string;
let site: FixtureSite;
let shop: ShopSite;
let slowShop: ShopSite;
let analyzeSite: FixtureSite;
let other: { tenantId: string; apiKey: string };
const clients: Client[] = [];

before(async () => {
  svc = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  await svc.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
  other = await svc.newTenant('tenant-b');
  site = await startFixtureSite();
  site.route(
    '/product',
    html('Blue Kettle', '<main><h1>Blue Kettle</h1><p>Price: 24.5</p><p>Brand: Acme</p></main>'),
  );
  shop = await startShopSite();
  slowShop = await startShopSite({ productDelayMs: 3_000 });
  analyzeSite = await startAnalyzeSite();
});
after(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await site?.close();
  await shop?.close();
  await slowShop?.close();
  await analyzeSite?.close();
  await svc?.close();
});

type Connect = (apiKey: string) => Promise<Client>;

const connectHttp: Connect = async (apiKey) => {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
};

const connectStdio = async (apiKey: string, url = base) => {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'api/mcp/stdio.ts'],
    env: { ...env, EXTRACT_SERVICE_URL: url, EXTRACT_SERVICE_API_KEY: apiKey },
    stderr: 'pipe',
  });
  await client.connect(transport);
  clients.push(client);
  return client;
};

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

/** A successful tool answer's JSON. */
async function ok(client: Client, name: string, args: Record<string, unknown>) {
  const result = await call(client, name, args);
  assert.ok(!result.isError, `${name} failed: ${textOf(result)}`);
  return JSON.parse(textOf(result));
}

/** A tool error's text: a problem's summary, never a stack trace or a key. */
async function fails(client: Client, name: string, args: Record<string, unknown>) {
  const result = await call(client, name, args);
  assert.equal(result.isError, true, `${name} should fail: ${textOf(result)}`);
  const text = textOf(result);
  assert.doesNotMatch(text, /\n\s+at /, 'no stack trace');
  assert.ok(!text.includes(svc.apiKey) && !text.includes(other.apiKey), 'no key');
  return text;
}

async function pollUntilEnded(client: Client, jobId: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await ok(client, 'job_status', { job_id: jobId });
    if (['completed', 'failed', 'cancelled'].includes(status.status)) return status;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${status.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const TOOLS = ['analyze', 'cancel_job', 'crawl', 'extract', 'job_results', 'job_status', 'list_jobs', 'map'];

function transportSuite(name: string, connect: Connect) {
  describe(`MCP over ${name}`, () => {
    let client: Client;
    let crawlJobId: string;
    before(async () => {
      client = await connect(svc.apiKey);
    });

    test('lists the tools, with inputs described by the API request schemas', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
      const extract = tools.find((t) => t.name === 'extract');
      assert.equal(extract?.inputSchema.type, 'object');
      assert.ok(extract?.inputSchema.properties?.url && extract.inputSchema.properties.schema);
      const crawl = tools.find((t) => t.name === 'crawl');
      assert.ok(crawl?.inputSchema.properties?.options, 'crawl options');
    });

    test('extract answers the data from the fixture page (fake model)', async () => {
      const body = await ok(client, 'extract', {
        url: `${site.url}/product`,
        schema: { name: 'string', price: 'number', brand: 'string' },
      });
      assert.deepEqual(body.data, { name: 'Blue Kettle', price: 24.5, brand: 'Acme' });
      assert.match(body.job_id, /^job_/);
      assert.ok(body.usage.input_tokens > 0);
    });

    test('a bad input is a tool error naming the field, from the API or the schema', async () => {
      const text = await fails(client, 'extract', { url: 'ftp://nope', schema: { a: 'string' } });
      assert.match(text, /url/);
      const both = await fails(client, 'extract', {
        url: `${site.url}/product`,
        schema: { a: 'string' },
        schema_id: 'x',
      });
      assert.match(both, /422[\s\S]*schema_id/);
      assert.match(await fails(client, 'job_status', { job_id: 'job_nothing' }), /404/);
    });

    test('crawl starts and answers at once; job_status shows progress to the end', async () => {
      const started = Date.now();
      const body = await ok(client, 'crawl', {
        url: `${shop.url}/`,
        schema: { name: 'string', price: 'number' },
        options: { follow_selector: 'a.product', next_selector: 'a.next', max_depth: 1 },
      });
      assert.match(body.job_id, /^job_/);
      assert.ok(['pending', 'running'].includes(body.status), body.status);
      assert.ok(Date.now() - started < 10_000, 'did not wait for the crawl');
      crawlJobId = body.job_id;
      const status = await pollUntilEnded(client, crawlJobId);
      assert.equal(status.status, 'completed');
      assert.equal(status.pages_done, 10);
      assert.equal(status.pages_failed, 1);
      assert.equal(status.pages_queued, 0);
      assert.ok(status.tokens.input > 0);
      assert.equal(typeof status.cost_usd, 'number');
    });

    test('job_results pages through the results, bounded per call', async () => {
      const seen = new Set<string>();
      let offset: number | null = 0;
      let total = 0;
      while (offset !== null) {
        const page = await ok(client, 'job_results', { job_id: crawlJobId, offset, limit: 4 });
        assert.ok(page.count <= 4 && page.count > 0);
        for (const item of page.items) seen.add(item.id);
        total = page.total;
        offset = page.next_offset;
      }
      assert.equal(seen.size, total);
      assert.ok(total >= 11, `total ${total}`);
      const merged = await ok(client, 'job_results', { job_id: crawlJobId, merge: true });
      assert.ok(merged.count > 0 && merged.items.some((r: { price?: unknown }) => r.price === 20));
      const tooMany = await fails(client, 'job_results', {
        job_id: crawlJobId,
        limit: MAX_RESULTS_PER_CALL + 1,
      });
      assert.match(tooMany, /limit/);
    });

    test('analyze answers the page type and a schema extract accepts', async () => {
      const analysis = await ok(client, 'analyze', {
        url: `${analyzeSite.url}/products`,
        fetch_mode: 'static',
      });
      assert.equal(analysis.page_type, 'listing');
      assert.ok(analysis.suggested_schema.length > 0);
      assert.ok(analysis.follow_patterns.length > 0);
    });

    test("map answers the site's URLs as a plain list", async () => {
      const map = await ok(client, 'map', {
        url: `${analyzeSite.url}/products`,
        use_sitemap: false,
        limit: 3,
      });
      assert.equal(map.urls[0], `${analyzeSite.url}/products`);
      assert.equal(map.shown, 3);
      assert.equal(map.total, 3);
      assert.equal(map.truncated, true);
      assert.ok(map.urls.every((u: unknown) => typeof u === 'string' && u.startsWith(analyzeSite.url)));
    });

    test('list_jobs shows the tenant its jobs, filtered by type and status when asked', async () => {
      const body = await ok(client, 'list_jobs', { limit: 100 });
      assert.ok(body.jobs.some((j: { job_id: string }) => j.job_id === crawlJobId));
      const crawls = await ok(client, 'list_jobs', { limit: 100, type: 'crawl' });
      assert.ok(crawls.jobs.some((j: { job_id: string }) => j.job_id === crawlJobId));
      assert.ok(
        crawls.jobs.every((j: { type: string }) => j.type === 'crawl'),
        JSON.stringify(crawls.jobs),
      );
      const maps = await ok(client, 'list_jobs', { limit: 100, type: 'map' });
      assert.ok(!maps.jobs.some((j: { job_id: string }) => j.job_id === crawlJobId));
    });

    test('cancel_job cancels a running crawl; a second cancel is a 409 tool error', async () => {
      const body = await ok(client, 'crawl', {
        url: `${slowShop.url}/`,
        schema: { name: 'string', price: 'number' },
        options: { follow_selector: 'a.product', max_depth: 1, concurrency: 1 },
      });
      const starts = slowShop.productStarts.length;
      for (let i = 0; i < 100 && slowShop.productStarts.length === starts; i++)
        await new Promise((r) => setTimeout(r, 100));
      const cancelled = await ok(client, 'cancel_job', { job_id: body.job_id });
      const final = cancelled.status === 'cancelled' ? cancelled : await pollUntilEnded(client, body.job_id);
      assert.equal(final.status, 'cancelled');
      assert.match(await fails(client, 'cancel_job', { job_id: body.job_id }), /409/);
    });

    test("another tenant's jobs are not visible", async () => {
      const stranger = await connect(other.apiKey);
      for (const tool of ['job_status', 'job_results', 'cancel_job'])
        assert.match(await fails(stranger, tool, { job_id: crawlJobId }), /404/, tool);
      const list = await ok(stranger, 'list_jobs', {});
      assert.ok(!list.jobs.some((j: { job_id: string }) => j.job_id === crawlJobId));
    });
  });
}

transportSuite('Streamable HTTP', connectHttp);
transportSuite('stdio', connectStdio);

describe('MCP refuses a wrong key', () => {
  test('over HTTP the connection is refused (401)', async () => {
    await assert.rejects(connectHttp('sk_wrong'));
  });

  test('over stdio every tool call is a 401 tool error', async () => {
    const client = await connectStdio('sk_wrong');
    assert.match(await fails(client, 'list_jobs', {}), /401/);
  });

  test('over stdio a service out of reach is a tool error naming its URL, not the key', async () => {
    const client = await connectStdio(svc.apiKey, 'http://127.0.0.1:9');
    const text = await fails(client, 'job_status', { job_id: 'job_x' });
    assert.match(text, /http:\/\/127\.0\.0\.1:9 could not be reached/);
  });

  test('/mcp without a key is a 401 problem; GET has no session stream (405 with a key)', async () => {
    const anonymous = await fetch(`${base}/mcp`, { method: 'POST', body: '{}' });
    assert.equal(anonymous.status, 401);
    assert.match(String(anonymous.headers.get('content-type')), /^application\/problem\+json/);
    const get = await fetch(`${base}/mcp`, { headers: svc.auth() });
    assert.equal(get.status, 405);
  });
});

describe('MCP and the rate limit', () => {
  test('the /mcp request and the API request a tool makes both count against the tenant', async () => {
    const { tenantId, apiKey } = await svc.newTenant('mcp-rate');
    await svc.deps.tenants.setRateLimit(tenantId, 3);
    const listJobs = () =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'list_jobs', arguments: {} },
        }),
      });
    const first = await listJobs(); // requests 1 and 2
    assert.equal(first.status, 200);
    assert.equal((await first.json()).result.isError, undefined);
    const second = await listJobs(); // request 3 passes, the tool's request 4 is refused
    assert.equal(second.status, 200);
    const refused = (await second.json()).result;
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /429[\s\S]*retry after/);
    assert.equal((await listJobs()).status, 429);
  });
});

describe('MCP answers are bounded', () => {
  const items = Array.from({ length: 30 }, (_, i) => ({ id: `p${i}`, data: 'x'.repeat(3_000) }));

  test('job_results keeps a page within the character bound and says where to go on', () => {
    const page = boundedPage(items, 0, 50, 'too big');
    assert.ok(JSON.stringify(page.items).length <= MAX_RESULTS_CHARS + 100);
    assert.ok(page.count > 0 && page.count < 30);
    assert.equal(page.next_offset, page.count);
    const last = boundedPage(items, 28, 50, 'too big');
    assert.equal(last.count, 2);
    assert.equal(last.next_offset, null);
  });

  test('a page whose data alone is over the bound is answered with a note instead of its data', () => {
    const page = boundedPage([{ id: 'huge', data: 'y'.repeat(MAX_RESULTS_CHARS * 2) }], 0, 10, 'too big');
    assert.deepEqual(page.items, [{ id: 'huge', data: null, data_omitted: 'too big' }]);
  });

  test('any tool answer is cut at the output bound with a note', () => {
    const result = jsonResult({ data: 'z'.repeat(MAX_TOOL_OUTPUT_CHARS * 2) });
    const first = result.content[0];
    assert.ok(first?.type === 'text' && first.text.length < MAX_TOOL_OUTPUT_CHARS + 200);
    assert.match(first?.type === 'text' ? first.text : '', /\[truncated/);
  });
});
