// The page pipeline's ports in memory: a site of pages served through the real fetch checks (status, bot
// walls, app shells), the HTML tasks run in this thread, a model that answers from a table and records what
// it was asked, and an event log. No database, no Temporal, no worker.
import type { CrawlPorts, SeenUrls } from '../../activities/crawl/crawl-types.js';
import type {
  AnswerInput,
  ModelAnswer,
  PageEvents,
  PageFetcher,
  PageModel,
  PagePorts,
  PageReader,
} from '../../activities/extraction/extraction-types.js';
import { noSpend } from '../../activities/extraction/llm/dialogue.js';
import { pageResult } from '../../activities/extraction/page-result.js';
import { fetchDocumentWith } from '../../activities/fetching/fetch-page.js';
import type { FetchedDocument } from '../../activities/fetching/page-document.js';
import { runTask } from '../../activities/reading/html-pool/tasks.js';
import { loadConfig } from '../../shared/config.js';
import type { JobEvent } from '../../shared/events.js';
import type { FieldProvenance } from '../../shared/structured-data.js';

export const html = (head: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>${head}</head><body>${body}</body></html>`;
export const jsonLd = (value: unknown) =>
  `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

export interface ServedPage {
  status?: number;
  contentType?: string;
  body: string;
}

/** A page as a site serves it: its HTML, or its status, type and body, or a function answering one later. */
export type SitePage = ServedPage | string | ((url: string) => Promise<ServedPage | string>);

/** A site's pages by URL; any other URL answers 404. Counts the requests it gets. */
export function memorySite(pages: Record<string, SitePage>) {
  const requests: string[] = [];
  const serve = async (url: string): Promise<FetchedDocument> => {
    requests.push(url);
    const entry = pages[url];
    const found = typeof entry === 'function' ? await entry(url) : entry;
    const page: ServedPage =
      typeof found === 'string'
        ? { body: found }
        : (found ?? { status: 404, body: html('', '<h1>Not found</h1>') });
    return {
      url,
      status: page.status ?? 200,
      headers: { 'content-type': page.contentType ?? 'text/html' },
      contentType: page.contentType ?? 'text/html',
      body: page.body,
      bytes: page.body.length,
    };
  };
  return { requests, fetchDocument: fetchDocumentWith({ static: serve }) };
}

/** Fetches from the site (static mode only: this fetcher has no browser); `stored`: the page store's pages. */
export function memoryFetcher(
  site: ReturnType<typeof memorySite>,
  stored: Record<string, ServedPage> = {},
): PageFetcher & { saved: string[] } {
  const saved: string[] = [];
  return {
    saved,
    async stored(input) {
      const page = input.stored ? stored[input.url] : undefined;
      if (!page) return null;
      const contentType = page.contentType ?? 'text/html';
      return {
        doc: {
          url: input.url,
          status: 200,
          headers: {},
          contentType,
          body: page.body,
          bytes: page.body.length,
        },
        mode: 'static',
        fetchedAt: '2026-11-01T00:00:00.000Z',
        durationMs: 0,
        fromCache: true,
        saved: Promise.resolve(),
      };
    },
    async fetch(input) {
      const fetched = await site.fetchDocument(input.url, input.fetchMode);
      saved.push(input.url);
      return { ...fetched, fromCache: false, saved: Promise.resolve() };
    },
  };
}

/** The HTML tasks run in this thread, as a pool's thread runs them. */
export const inProcessReader: PageReader = {
  run: async (task) => runTask(task) as never,
};

/** What the model was asked: the fields and the content it was sent. */
export interface Asked {
  fields: string[];
  body: string;
}

/**
 * A model that answers each asked field from `answers` (or the page's own table, by its input; a field it has no answer for is left out), at 100
 * input and 10 output tokens; with `captures`, each answer has a debug capture whose provenance is kept.
 */
export function memoryModel(
  answers: Record<string, unknown> | ((input: AnswerInput) => Record<string, unknown>),
  options: { captures?: boolean } = {},
) {
  const asked: Asked[] = [];
  const provenance = new Map<string, Record<string, FieldProvenance>>();
  const config = loadConfig({});
  const model: PageModel = {
    async ask(input: AnswerInput, body: string, started: number): Promise<ModelAnswer> {
      const fields = input.schema.fields.map((f) => f.name);
      asked.push({ fields, body });
      const table = typeof answers === 'function' ? answers(input) : answers;
      const data = Object.fromEntries(fields.filter((f) => f in table).map((f) => [f, table[f]]));
      const spend = { ...noSpend(), inputTokens: 100, outputTokens: 10 };
      const entry = { provider: 'memory', model: 'table', position: 0, isByok: true };
      const answered = pageResult(config, input, entry, { data }, spend, Date.now() - started);
      return options.captures ? { ...answered, captureId: `${input.pageId}:001` } : answered;
    },
    async noteProvenance(captureId, found) {
      provenance.set(captureId, found);
    },
    warm: () => undefined,
  };
  return { model, asked, provenance };
}

/** A model that fails the test when asked. */
export const noModelExpected: PageModel = {
  ask: async (input) => {
    throw new Error(`the model was asked for ${input.schema.fields.map((f) => f.name).join(', ')}`);
  },
  noteProvenance: async () => undefined,
  warm: () => undefined,
};

/** An event log: appended in order (deferred appends too), read back by job and seq. */
export function memoryEvents(): PageEvents & { log: JobEvent[] } {
  const log: JobEvent[] = [];
  const append = async (events: readonly JobEvent[]) => {
    for (const event of events)
      if (!log.some((e) => e.job_id === event.job_id && e.seq === event.seq)) log.push(event);
  };
  return {
    log,
    append,
    appendDeferred: (events) => append(events),
    get: async (jobId, seq) => log.find((e) => e.job_id === jobId && e.seq === seq) ?? null,
  };
}

export function memoryPorts(parts: Pick<PagePorts, 'fetcher' | 'model'> & Partial<PagePorts>): PagePorts {
  return { config: loadConfig({}), reader: inProcessReader, events: memoryEvents(), ...parts };
}

/** The URLs a crawl's pages marked, by job. */
export function memorySeenUrls(): SeenUrls & { marks: Map<string, number> } {
  const marks = new Map<string, number>();
  return {
    marks,
    async mark(jobId, node, urls) {
      const before = new Set<string>();
      for (const url of urls) {
        const key = `${jobId} ${url}`;
        if (marks.has(key)) before.add(url);
        else marks.set(key, node);
      }
      return before;
    },
    async markedBy(jobId, url) {
      return marks.get(`${jobId} ${url}`) ?? null;
    },
  };
}

export function memoryCrawlPorts(
  parts: Pick<PagePorts, 'fetcher' | 'model'> & Partial<CrawlPorts>,
): CrawlPorts & { seen: ReturnType<typeof memorySeenUrls> } {
  return {
    ...memoryPorts(parts),
    robotsAllow: async () => true,
    learner: null,
    ...parts,
    seen: (parts.seen as ReturnType<typeof memorySeenUrls> | undefined) ?? memorySeenUrls(),
  };
}
