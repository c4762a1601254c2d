// createClient: the generated types (schema.d.ts) behind openapi-fetch, plus the helpers people need.
import createFetchClient from 'openapi-fetch';
import { problemOf } from './errors.js';
import { type RetryOptions, retryingFetch } from './retry.js';
import type { components, paths } from './schema.js';
import { type JobStreamEvent, resumableStream, type StreamOptions } from './sse.js';

type Schemas = components['schemas'];
export type ExtractRequest = Schemas['ExtractRequestInput'];
export type ExtractResponse = Schemas['ExtractResponse'];
export type AcceptedJob = Schemas['AcceptedJob'];
export type CrawlRequest = Schemas['CrawlRequestInput'];
export type CrawlResponse = Schemas['CrawlResponse'];
export type Job = Schemas['Job'];
export type JobResult = Schemas['JobResult'];
export type ResultFormat = 'json' | 'jsonl' | 'yaml';

export interface ClientOptions extends RetryOptions {
  /** The service's origin, e.g. http://127.0.0.1:8080 (the /api/v1 prefix is added). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`. Without one, the browser's credentials (the console's session) are used. */
  apiKey?: string;
  /** Headers sent with every request (the console sends its session's CSRF token). */
  headers?: Record<string, string>;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
}

export interface StartOptions {
  /** Makes the POST safe to repeat: the same key returns the same job. Default: a new random UUID. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** Default 10 minutes. */
  timeoutMs?: number;
  /** Default 1 s. */
  intervalMs?: number;
  signal?: AbortSignal;
}

export interface ResultsOptions {
  /** json (parsed) by default; jsonl and yaml come back as text, as the service sent them. */
  format?: ResultFormat;
  /** One de-duplicated array merged from the pages' data instead of the page results. */
  merge?: boolean;
  includeProvenance?: boolean;
}

const TERMINAL = new Set<Job['status']>(['completed', 'failed', 'cancelled']);
const bool = (value: boolean | undefined): 'true' | 'false' | undefined =>
  value === undefined ? undefined : value ? 'true' : 'false';

/** openapi-fetch's answer: the data of a 2xx, else the problem document as a ProblemError. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (!result.response.ok || result.data === undefined) throw problemOf(result.response, result.error);
  return result.data;
}

export function createClient(options: ClientOptions) {
  const fetchImpl = retryingFetch(options.fetch ?? globalThis.fetch, options);
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const auth: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  // The interface's shapes (API version v1), whatever version the key is pinned to.
  const version = { 'x-api-version': 'v1' };
  const headers: Record<string, string> = { ...options.headers, ...auth, ...version };
  const api = createFetchClient<paths>({ baseUrl, fetch: fetchImpl, headers });
  const start = (opts: StartOptions) => ({
    headers: { 'idempotency-key': opts.idempotencyKey ?? crypto.randomUUID() },
    signal: opts.signal,
  });

  const client = {
    /** The typed openapi-fetch client, for every other route: `client.api.GET('/api/v1/keys')`. */
    api,

    /** Extracts from one page; waits for the result (200), or answers 202 with the job when it takes long. */
    async extract(body: ExtractRequest, opts: StartOptions = {}): Promise<ExtractResponse | AcceptedJob> {
      return ok(await api.POST('/api/v1/extract', { body, ...start(opts) }));
    },

    /** Starts a crawl and answers at once with the job (job_id, status, status_url, queue_position). */
    async crawl(body: CrawlRequest, opts: StartOptions = {}): Promise<CrawlResponse> {
      return ok(await api.POST('/api/v1/crawl', { body, ...start(opts) }));
    },

    async job(id: string, opts: { signal?: AbortSignal } = {}): Promise<Job> {
      return ok(await api.GET('/api/v1/jobs/{id}', { params: { path: { id } }, signal: opts.signal }));
    },

    /** Polls the job until it is completed, failed or cancelled; throws after timeoutMs. */
    async waitForJob(id: string, opts: WaitOptions = {}): Promise<Job> {
      const deadline = Date.now() + (opts.timeoutMs ?? 600_000);
      for (;;) {
        const job = await client.job(id, opts);
        if (TERMINAL.has(job.status)) return job;
        if (Date.now() >= deadline) throw new Error(`job ${id} still ${job.status} after the timeout`);
        const wait = Math.min(opts.intervalMs ?? 1000, Math.max(0, deadline - Date.now()));
        await new Promise((resolve) => setTimeout(resolve, wait));
        opts.signal?.throwIfAborted();
      }
    },

    results: (async (id: string, opts: ResultsOptions = {}) => {
      const format = opts.format ?? 'json';
      const query = { format, merge: bool(opts.merge), include_provenance: bool(opts.includeProvenance) };
      const params = { path: { id }, query };
      if (format === 'json') return ok(await api.GET('/api/v1/jobs/{id}/results', { params }));
      return ok(await api.GET('/api/v1/jobs/{id}/results', { params, parseAs: 'text' }));
    }) as {
      (id: string, opts?: ResultsOptions & { format?: 'json'; merge?: false }): Promise<JobResult[]>;
      (id: string, opts: ResultsOptions & { format?: 'json'; merge: true }): Promise<unknown[]>;
      (id: string, opts: ResultsOptions & { format: 'jsonl' | 'yaml' }): Promise<string>;
    },

    /** Cancels a pending or running job (409 ProblemError when it already ended). */
    async cancel(id: string): Promise<Job> {
      return ok(await api.POST('/api/v1/jobs/{id}/cancel', { params: { path: { id } } }));
    },

    /** Re-runs the failed pages of a finished job as a new job (409 ProblemError when none failed). */
    async retry(id: string): Promise<Job> {
      return ok(await api.POST('/api/v1/jobs/{id}/retry', { params: { path: { id } } }));
    },

    /** The job's events until `complete`; a dropped connection is resumed with Last-Event-ID. */
    stream(jobId: string, opts: StreamOptions = {}): AsyncGenerator<JobStreamEvent> {
      const url = `${baseUrl}/api/v1/jobs/${encodeURIComponent(jobId)}/stream`;
      return resumableStream((lastEventId, signal) => {
        const streamHeaders: Record<string, string> = { ...headers, accept: 'text/event-stream' };
        if (lastEventId !== undefined) streamHeaders['last-event-id'] = String(lastEventId);
        return fetchImpl(new Request(url, { headers: streamHeaders, signal }));
      }, opts);
    },
  };
  return client;
}

export type ExtractServiceClient = ReturnType<typeof createClient>;
