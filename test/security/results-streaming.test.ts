// GET /jobs/{id}/results and /crawl-map of a crawl of 3,000 pages (~18 MB of data), written through the
// event store as the workflows would: every page is answered, in order, and the answer is streamed from
// batched keyed reads (`_id` lookups of result chunks), not loaded whole before the first byte. The reads
// are counted on the database handle the API's stores use.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import * as yaml from 'js-yaml';
import { crawlResponseWithData } from '../../api/job-answer.js';
import { RERUN_MAX_PAGES } from '../../api/routes/jobs/earlier-pages.js';
import type { JobEvent } from '../../shared/events.js';
import { CrawlResponseSchema } from '../../shared/schemas/crawl.js';
import { COLLECTIONS } from '../../shared/store/mongo.js';
import { jobLog } from '../support/job-log.js';
import { startTestService, type TestService } from '../support/service.js';

const PAGES = 3000;
const PENDING = 100; // the last nodes are discovered but not processed
const DATA = 'x'.repeat(6000);
let svc: TestService;
let port: number;
let jobId: string;
const reads: Record<string, number> = {};

/** Counts findOne calls per collection on the database the API's stores read through. */
function countReads() {
  const db = svc.mongo.db;
  const collection = db.collection.bind(db);
  db.collection = ((name: string, options?: object) => {
    const col = collection(name, options);
    const findOne = col.findOne.bind(col);
    col.findOne = ((...args: unknown[]) => {
      reads[name] = (reads[name] ?? 0) + 1;
      return (findOne as (...a: unknown[]) => unknown)(...args);
    }) as typeof col.findOne;
    return col;
  }) as typeof db.collection;
}

const urlOf = (node: number) => `https://big.test/p/${node}`;

before(async () => {
  svc = await startTestService({ worker: false, env: { RATE_LIMIT_PER_MINUTE: '10000' } });
  jobId = `job_${randomUUID()}`;
  const log = jobLog(jobId, svc.tenantId);
  const urls = Array.from({ length: PAGES }, (_, node) => urlOf(node));
  await svc.deps.events.append([log.created('crawl', urlOf(0)), log.started(), log.discovered(urls, 0)]);
  for (let start = 0; start < PAGES - PENDING; start += 250) {
    const events: JobEvent[] = [];
    for (let node = start; node < Math.min(start + 250, PAGES - PENDING); node++)
      events.push(
        node % 10 === 9 ? log.failed(urlOf(node), node) : log.completed(urlOf(node), { node, DATA }, node),
      );
    await svc.deps.events.append(events);
  }
  await svc.app.listen({ host: '127.0.0.1', port: 0 });
  port = (svc.app.server.address() as AddressInfo).port;
  countReads();
});
after(async () => svc?.close());

interface Streamed {
  status: number;
  type: string;
  body: string;
  /** Result and crawl-map chunk reads made when the first byte arrived, and after the client paused. */
  atFirstByte: Record<string, number>;
  whilePaused: Record<string, number>;
}

/** A GET that reads the first chunk, stops reading for a while (backpressure), then reads the rest. */
function get(path: string, pauseMs = 0): Promise<Streamed> {
  for (const key of Object.keys(reads)) reads[key] = 0;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: svc.auth() }, (res) => {
      const chunks: Buffer[] = [];
      let atFirstByte: Record<string, number> | null = null;
      let whilePaused: Record<string, number> = {};
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (atFirstByte) return;
        atFirstByte = { ...reads };
        if (pauseMs === 0) return;
        res.pause();
        void sleep(pauseMs).then(() => {
          whilePaused = { ...reads };
          res.resume();
        });
      });
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type']),
          body: Buffer.concat(chunks).toString('utf8'),
          atFirstByte: atFirstByte ?? {},
          whilePaused,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const resultChunks = () => Math.floor((PAGES - PENDING + 3) / 10) + 1;

describe('results of a 3,000-page crawl', () => {
  test('every page is answered in order, from batched reads that follow the client', async (t) => {
    const res = await get(`/api/v1/jobs/${jobId}/results`, 800);
    assert.equal(res.status, 200);
    assert.match(res.type, /^application\/json/);
    const items = JSON.parse(res.body) as { url: string; status: string; data: { node: number } | null }[];
    assert.equal(items.length, PAGES - PENDING);
    items.forEach((item, i) => {
      assert.equal(item.url, urlOf(i));
      assert.equal(item.status, i % 10 === 9 ? 'failed' : 'completed');
      if (item.status === 'completed') assert.equal(item.data?.node, i);
    });
    const all = reads[COLLECTIONS.results] ?? 0;
    assert.ok(all >= resultChunks(), `read ${all} result chunks`);
    // Streamed: the answer starts before most chunks are read, and a client that stops reading stops the reads.
    const first = res.atFirstByte[COLLECTIONS.results] ?? 0;
    const paused = res.whilePaused[COLLECTIONS.results] ?? 0;
    t.diagnostic(`result chunks read: ${first} at the first byte, ${paused} while paused, ${all} in all`);
    assert.ok(first <= 32, `${first} of ${all} chunks read before the first byte`);
    assert.ok(paused < all / 2, `${paused} of ${all} chunks read while the client was paused`);
  });

  test('JSON Lines and YAML carry the same pages', async () => {
    const jsonl = await get(`/api/v1/jobs/${jobId}/results?format=jsonl`);
    const lines = jsonl.body.split('\n');
    assert.equal(lines.pop(), '');
    assert.equal(lines.length, PAGES - PENDING);
    assert.equal(JSON.parse(lines[1234] as string).url, urlOf(1234));
    const yamlRes = await get(`/api/v1/jobs/${jobId}/results?format=yaml`);
    assert.match(yamlRes.type, /^application\/yaml/);
    const items = yaml.load(yamlRes.body) as { url: string }[];
    assert.equal(items.length, PAGES - PENDING);
    assert.equal(items[PAGES - PENDING - 1]?.url, urlOf(PAGES - PENDING - 1));
  });

  test('a job with no finished page is an empty list in every format', async () => {
    const empty = `job_${randomUUID()}`;
    await svc.deps.events.append([jobLog(empty, svc.tenantId).created('crawl')]);
    assert.equal((await get(`/api/v1/jobs/${empty}/results`)).body, '[]');
    assert.equal((await get(`/api/v1/jobs/${empty}/results?format=jsonl`)).body, '');
    assert.deepEqual(yaml.load((await get(`/api/v1/jobs/${empty}/results?format=yaml`)).body), []);
  });
});

describe('crawl map of a 3,000-page crawl', () => {
  test('every discovered URL with its outcome and the counts, streamed from batched reads', async () => {
    const res = await get(`/api/v1/jobs/${jobId}/crawl-map`);
    assert.equal(res.status, 200);
    const map = JSON.parse(res.body);
    assert.equal(map.job_id, jobId);
    assert.equal(map.entries.length, PAGES);
    const failed = (PAGES - PENDING) / 10;
    assert.equal(map.total, PAGES);
    assert.equal(map.completed, PAGES - PENDING - failed);
    assert.equal(map.failed, failed);
    assert.deepEqual(map.error_summary, {
      total: failed,
      has_rate_limit: false,
      by_category: { http_status: failed },
    });
    map.entries.forEach((entry: { url: string; status: string; node?: number }, i: number) => {
      assert.equal(entry.url, urlOf(i));
      const expected = i >= PAGES - PENDING ? 'pending' : i % 10 === 9 ? 'failed' : 'completed';
      assert.equal(entry.status, expected, `entry ${i}`);
      assert.equal(entry.node, undefined);
    });
    const mapChunks = reads[COLLECTIONS.crawlMap] ?? 0;
    assert.ok(mapChunks >= PAGES / 25, `read ${mapChunks} crawl-map chunks`);
    assert.ok(
      (res.atFirstByte[COLLECTIONS.crawlMap] ?? 0) < mapChunks,
      'the answer starts before the map is read',
    );
  });
});

describe('answers that take every page of a large crawl', () => {
  test("a waited crawl's answer streams its pages' data from batched reads", async () => {
    const job = await svc.deps.jobs.get(svc.tenantId, jobId);
    assert.ok(job);
    for (const key of Object.keys(reads)) reads[key] = 0;
    const body = await crawlResponseWithData(svc.deps, job, false);
    assert.ok(!Array.isArray(body) && typeof (body as { pipe?: unknown }).pipe === 'function', 'a stream');
    const chunks: string[] = [];
    let atFirstChunk = -1;
    for await (const chunk of body as AsyncIterable<Buffer | string>) {
      if (atFirstChunk < 0) atFirstChunk = reads[COLLECTIONS.results] ?? 0;
      chunks.push(String(chunk));
    }
    const answer = JSON.parse(chunks.join('')) as {
      job_id: string;
      data: { url: string }[];
      error_message: null;
    };
    assert.equal(answer.job_id, jobId);
    assert.equal(answer.data.length, PAGES - PENDING);
    assert.equal(answer.data[2345]?.url, urlOf(2345));
    assert.equal(answer.error_message, job.error_message);
    // The stream skips the response serializer: what it writes must still be the documented CrawlResponse.
    CrawlResponseSchema.strict().parse(answer);
    const all = reads[COLLECTIONS.results] ?? 0;
    assert.ok(
      atFirstChunk <= 32 && atFirstChunk < all,
      `${atFirstChunk} of ${all} chunks read before the first chunk`,
    );
  });

  test('a retry or re-extract over more pages than its workflow input holds is a 409 naming them', async () => {
    const big = `job_${randomUUID()}`;
    const log = jobLog(big, svc.tenantId);
    const failed = RERUN_MAX_PAGES + 50;
    const urls = Array.from({ length: failed }, (_, node) => `https://many.test/p/${node}`);
    const events: JobEvent[] = [log.created('crawl', urls[0]), log.started(), log.discovered(urls, 0)];
    for (const [node, url] of urls.entries()) events.push(log.failed(url, node));
    events.push(log.jobCompleted());
    for (let i = 0; i < events.length; i += 500) await svc.deps.events.append(events.slice(i, i + 500));
    const post = (path: string, body?: unknown) =>
      svc.app.inject({
        method: 'POST',
        url: `/api/v1/jobs/${big}/${path}`,
        headers: { ...svc.auth(), ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      });
    const retry = await post('retry');
    assert.equal(retry.statusCode, 409, retry.body);
    assert.match(retry.json().detail, new RegExp(`${failed} failed pages.*at most ${RERUN_MAX_PAGES} pages`));
    const reextract = await post('reextract', { schema: { title: 'string' } });
    assert.equal(reextract.statusCode, 409, reextract.body);
    assert.match(reextract.json().detail, new RegExp(`${failed} pages`));
  });
});
