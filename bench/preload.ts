// Fills a bench's stack with finished jobs in minutes, not hours: copies of one job the service really ran,
// written through the real stores as the service leaves a job (its event log and the projections derived
// from it, a tenant job number, the raw and cleaned contents of each page), without Temporal.
import { randomUUID } from 'node:crypto';
import type { JobEvent } from '../shared/events.js';
import type { Stores } from '../shared/store/index.js';

export interface PreloadOptions {
  tenantId: string;
  jobs: number;
  /** The events of a finished job: every copy is this job under a new id, number and times. */
  template: readonly JobEvent[];
  /** Bytes of each page's raw HTML (its cleaned text is a tenth of it). 100 KB: a typical product page. */
  pageBytes?: number;
  /** Copies written at once. */
  parallel?: number;
  /**
   * Where each page's HTML goes: `contents` (raw and cleaned, as an extract's fetchPage and cleanContent keep
   * them) or `pages` (the page store, as a crawl page keeps its fetch: body, record and latest pointer).
   */
  store?: 'contents' | 'pages';
  /** The copies' times are spread evenly over this many days up to now, oldest first. */
  spreadDays?: number;
  now?: Date;
  onProgress?: (done: number) => void;
}

type PreloadStores = Pick<Stores, 'events' | 'jobs' | 'contents' | 'pages'>;
type PageCompleted = Extract<JobEvent, { type: 'page.completed' }>;
const DAY_MS = 86_400_000;

/** Writes `jobs` copies of the template; resolves with their ids, oldest first. */
export async function preloadJobs(stores: PreloadStores, opts: PreloadOptions): Promise<string[]> {
  const first = opts.template[0];
  if (first?.type !== 'job.created') throw new Error('a preload template starts with job.created');
  const now = (opts.now ?? new Date()).getTime();
  const spanMs = (opts.spreadDays ?? 7) * DAY_MS;
  const ids: string[] = new Array(opts.jobs);
  let next = 0;
  let done = 0;
  const copyNext = async (): Promise<void> => {
    for (let i = next++; i < opts.jobs; i = next++) {
      const startAt = now - spanMs + (spanMs * (i + 1)) / opts.jobs;
      ids[i] = await writeCopy(stores, opts, startAt);
      if (++done % 500 === 0) opts.onProgress?.(done);
    }
  };
  await Promise.all(Array.from({ length: opts.parallel ?? 8 }, copyNext));
  return ids;
}

/** Copies of a job this stack ran (read back from its log), with the time it took printed to stderr. */
export async function preloadLike(
  stores: PreloadStores,
  jobId: string,
  opts: Omit<PreloadOptions, 'template'>,
): Promise<{ jobs: number; seconds: number }> {
  const template: JobEvent[] = [];
  for (let page = await stores.events.list(jobId); page.length > 0; ) {
    template.push(...page);
    page = await stores.events.list(jobId, page[page.length - 1]?.seq ?? 0);
  }
  const started = performance.now();
  await preloadJobs(stores, {
    ...opts,
    template,
    onProgress: (done) => process.stderr.write(`preloaded ${done} of ${opts.jobs} jobs\n`),
  });
  return { jobs: opts.jobs, seconds: Number(((performance.now() - started) / 1000).toFixed(1)) };
}

async function writeCopy(stores: PreloadStores, opts: PreloadOptions, startAt: number): Promise<string> {
  const template = opts.template;
  const templateId = template[0]?.job_id ?? '';
  const jobId = `job_${randomUUID().replaceAll('-', '')}`;
  const tenantSeq = await stores.jobs.nextTenantSeq(opts.tenantId, jobId);
  const shift = startAt - Date.parse(template[0]?.at ?? '');
  const at = (iso: string) => new Date(Date.parse(iso) + shift).toISOString();
  // The job id also sits inside data (the workflow id, crawl-map entry ids): renamed everywhere at once.
  const copied = JSON.parse(
    JSON.stringify(template)
      .replaceAll(templateId, jobId)
      .replaceAll(template[0]?.tenant_id ?? '', opts.tenantId),
  ) as JobEvent[];
  const events = copied.map((e): JobEvent => {
    const common = { event_id: randomUUID(), at: at(e.at) };
    if (e.type === 'job.created') return { ...e, ...common, data: { ...e.data, tenant_seq: tenantSeq } };
    if (e.type === 'page.completed') {
      return {
        ...e,
        ...common,
        data: { ...e.data, page_id: randomUUID(), fetched_at: at(e.data.fetched_at) },
      };
    }
    return { ...e, ...common };
  });
  await stores.events.append(events);
  const pages = events.filter((e): e is PageCompleted => e.type === 'page.completed');
  const bytes = opts.pageBytes ?? 100_000;
  for (const page of pages) {
    if (opts.store === 'pages') await writePage(stores, opts.tenantId, jobId, page, bytes);
    else await writeContents(stores, jobId, page, bytes);
  }
  return jobId;
}

/** The page's fetch as the page store keeps a crawl page's (a body of its own, its record, its URL's latest). */
async function writePage(
  stores: PreloadStores,
  tenantId: string,
  jobId: string,
  page: PageCompleted,
  bytes: number,
) {
  const body = pageHtml(bytes);
  await stores.pages.save({
    tenantId,
    jobId,
    pageId: page.data.page_id,
    url: page.data.url,
    finalUrl: page.data.final_url,
    status: 200,
    headers: { 'content-type': 'text/html' },
    contentType: 'text/html',
    fetchMode: 'static',
    body,
    bytes: body.length,
    fetchedAt: page.data.fetched_at,
  });
}

/** The page's raw HTML and its cleaned text, as fetchPage and cleanContent store them. */
async function writeContents(stores: PreloadStores, jobId: string, page: PageCompleted, bytes: number) {
  const common = {
    job_id: jobId,
    url: page.data.url,
    final_url: page.data.final_url,
    content_type: 'text/html',
    status_code: 200,
    created_at: page.data.fetched_at,
  };
  const raw = pageHtml(bytes);
  await stores.contents.put({ _id: randomUUID(), kind: 'raw', body: raw, ...common });
  await stores.contents.put({
    _id: randomUUID(),
    kind: 'cleaned',
    body: raw.replace(/<[^>]+>/g, ' ').slice(0, Math.ceil(bytes / 10)),
    structured: [],
    format: 'markdown',
    ...common,
  });
}

/** HTML of about `bytes`, varied so that no two pages are the same. */
function pageHtml(bytes: number): string {
  const seed = randomUUID();
  const parts = ['<!doctype html><html><head><title>Item</title></head><body><h1>Item</h1>'];
  let size = parts[0]?.length ?? 0;
  for (let n = 0; size < bytes; n++) {
    const block = `<div class="row r${n}"><a href="/item/${seed}/${n}">Item ${n}</a><p>Words about the item ${seed.slice(0, 8 + (n % 24))}, price ${n % 97}.</p></div>`;
    parts.push(block);
    size += block.length;
  }
  parts.push('</body></html>');
  return parts.join('');
}
