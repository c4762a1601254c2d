// Static fetch through the guarded dispatcher; the body is stored and only its id returns to the workflow.
import { CategorizedError } from '../shared/errors.js';
import { guardedFetch } from '../shared/net/guarded-fetch.js';
import type { ActivityDeps } from './deps.js';
import { categorized } from './failure.js';

export interface FetchPageInput {
  jobId: string;
  url: string;
  fetchMode: 'auto' | 'static' | 'dynamic';
  contentId: string;
}

export interface FetchPageResult {
  contentId: string;
  finalUrl: string;
  statusCode: number;
  contentType: string;
  bytes: number;
  fetchMode: 'static' | 'dynamic';
  fetchedAt: string;
  durationMs: number;
}

const TEXT_TYPES = ['text/html', 'application/xhtml+xml', 'text/plain'];

export function makeFetchPage(deps: ActivityDeps) {
  const { config } = deps;
  return async function fetchPage(input: FetchPageInput): Promise<FetchPageResult> {
    return categorized(async () => {
      const started = Date.now();
      const res = await guardedFetch({
        url: input.url,
        timeoutMs: config.FETCH_TIMEOUT_MS,
        maxBytes: config.FETCH_MAX_BYTES,
        maxRedirects: config.FETCH_MAX_REDIRECTS,
        policy: { allowPrivate: config.ALLOW_PRIVATE_ADDRESSES },
        headers: { accept: 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.5' },
      });
      if (res.status >= 400) {
        // 429 and 5xx may pass; other 4xx will not change on a retry.
        const retryable = res.status === 429 || res.status >= 500;
        throw new CategorizedError('http_status', `the page answered HTTP ${res.status}`, retryable, {
          status: res.status,
        });
      }
      const contentType = (res.headers['content-type'] ?? 'text/html').toLowerCase();
      const mime = contentType.split(';')[0]!.trim();
      if (!TEXT_TYPES.includes(mime)) {
        throw new CategorizedError('unsupported_content', `the page is ${mime}, not HTML or text`);
      }
      const body = decode(res.body, contentType);
      if (!body.trim()) throw new CategorizedError('insufficient_content', 'the page is empty');
      const fetchedAt = new Date().toISOString();
      await deps.contents.put({
        _id: input.contentId,
        job_id: input.jobId,
        kind: 'raw',
        url: input.url,
        final_url: res.url,
        content_type: mime,
        status_code: res.status,
        body,
        created_at: fetchedAt,
      });
      return {
        contentId: input.contentId,
        finalUrl: res.url,
        statusCode: res.status,
        contentType: mime,
        bytes: res.body.length,
        fetchMode: 'static',
        fetchedAt,
        durationMs: Date.now() - started,
      };
    });
  };
}

/** Decodes with the charset named by the header, else a <meta charset>, else UTF-8. */
function decode(body: Buffer, contentType: string): string {
  const fromHeader = /charset=["']?([\w-]+)/i.exec(contentType)?.[1];
  const head = body.subarray(0, 2048).toString('latin1');
  const fromMeta = /<meta[^>]+charset=["']?([\w-]+)/i.exec(head)?.[1];
  for (const label of [fromHeader, fromMeta, 'utf-8']) {
    if (!label) continue;
    try {
      return new TextDecoder(label).decode(body);
    } catch {
      // unknown label: try the next one
    }
  }
  return body.toString('utf8');
}
