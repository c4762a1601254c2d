// What crosses between the worker and its document reader process (reader-process.ts, reader-child.ts).
// Plain data: errors come back as data so their category survives the crossing.
import type { ErrorData } from '../../../shared/errors.js';
import type { DocumentReading } from './read-document.js';
import type { ReadLimits } from './read-limits.js';

export interface ReaderRequest {
  body: Uint8Array;
  file: 'pdf' | 'zip';
  limits: ReadLimits;
}

export type ReaderReply =
  /** Sent once, when the parsers are loaded. */
  { ready: true } | { ok: true; value: DocumentReading } | { ok: false; error: ErrorData };
