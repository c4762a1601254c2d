// Static mode: one guarded request (address policy on every hop, size and time limits), no scripts run. Types
// that are neither a page nor possibly a document (PDF, Office) are refused from the headers alone, before
// their body is downloaded; a document is read as HTML by `documents` (activities/fetching/documents/).
import type { AddressPolicy, LookupFn } from '../../shared/net/address-policy.js';
import { guardedFetch, type OriginHeaders } from '../../shared/net/guarded-fetch.js';
import { type DocumentReader, fileKind, mayBeDocument } from './documents/kinds.js';
import { DOCUMENT_TYPES, type FetchedDocument, unsupportedContent } from './page-document.js';

export interface StaticFetchOptions {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  policy: AddressPolicy;
  lookup?: LookupFn;
  signal?: AbortSignal;
  /** Reads PDF and Office files as HTML; without it they are unsupported content, as any other file. */
  documents?: DocumentReader;
  /** A stored site's session: its cookie and headers, sent only to its origin. */
  originHeaders?: OriginHeaders;
}

const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.5';

export async function fetchStatic(url: string, opts: StaticFetchOptions): Promise<FetchedDocument> {
  const res = await guardedFetch({
    url,
    timeoutMs: opts.timeoutMs,
    maxBytes: opts.maxBytes,
    maxRedirects: opts.maxRedirects,
    policy: opts.policy,
    lookup: opts.lookup,
    signal: opts.signal,
    headers: { accept: ACCEPT },
    ...(opts.originHeaders ? { originHeaders: opts.originHeaders } : {}),
    inspectResponse: (status, headers) => {
      // Error pages are read whatever their type: the caller reports the status (or the bot wall).
      const mime = mediaType(headers['content-type']);
      if (
        status < 400 &&
        mime !== null &&
        !DOCUMENT_TYPES.includes(mime) &&
        !(opts.documents && mayBeDocument(mime))
      )
        throw unsupportedContent(mime);
    },
  });
  const header = res.headers['content-type'];
  const mime = mediaType(header) ?? sniff(res.body);
  const file = res.status < 400 && opts.documents ? fileKind(mime, res.body) : null;
  if (file && opts.documents) {
    const read = await opts.documents(res.body, file, opts.signal);
    const { url, status, headers } = res;
    return { url, status, headers, contentType: read.contentType, body: read.html, bytes: res.body.length };
  }
  if (res.status < 400 && !DOCUMENT_TYPES.includes(mime)) throw unsupportedContent(mime);
  return {
    url: res.url,
    status: res.status,
    headers: res.headers,
    contentType: mime,
    body: decode(res.body, header ?? ''),
    bytes: res.body.length,
  };
}

export function mediaType(contentType: string | undefined): string | null {
  const mime = contentType?.split(';')[0]?.trim().toLowerCase();
  return mime ? mime : null;
}

const SIGNATURES: Array<[string, string]> = [
  ['%PDF-', 'application/pdf'],
  ['\x89PNG', 'image/png'],
  ['\xff\xd8\xff', 'image/jpeg'],
  ['GIF8', 'image/gif'],
  ['PK\x03\x04', 'application/zip'],
  ['\x1f\x8b', 'application/gzip'],
];

/** A type for a response that named none: well-known binary signatures, else HTML (what browsers assume). */
function sniff(body: Buffer): string {
  const head = body.subarray(0, 8).toString('latin1');
  for (const [signature, mime] of SIGNATURES) if (head.startsWith(signature)) return mime;
  if (body.subarray(0, 1024).includes(0)) return 'application/octet-stream';
  return 'text/html';
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
