// The worker's document reader: documents are read in child processes (reader-pool.ts) under the HTML time
// limit and a memory bound on the whole process, with the limits a web page has (FETCH_MAX_BYTES for the
// HTML) and a bound on what an Office zip unpacks to.
import type { Config } from '../../../shared/config.js';
import type { DocumentReader } from './kinds.js';
import { createReaderPool } from './reader-pool.js';

/** What an Office file's parts may unpack to, as a multiple of FETCH_MAX_BYTES (50 MB by default). */
export const UNZIP_FACTOR = 10;

/**
 * Resident memory a reader may add while reading one document: room for pdf.js's own structures plus a few
 * times the unzip bound (a decoded stream is held whole, and its buffer grows by doubling).
 */
export const readerMemoryBytes = (fetchMaxBytes: number): number =>
  READER_BASE_BYTES + 4 * UNZIP_FACTOR * fetchMaxBytes;
const READER_BASE_BYTES = 128 * 2 ** 20;

export interface DocumentReaders {
  read: DocumentReader;
  close(): Promise<void>;
}

export function createDocumentReaders(
  config: Pick<Config, 'FETCH_MAX_BYTES' | 'HTML_WORKERS' | 'HTML_TIMEOUT_MS'>,
): DocumentReaders {
  const limits = {
    maxHtmlChars: config.FETCH_MAX_BYTES,
    maxUnzippedBytes: UNZIP_FACTOR * config.FETCH_MAX_BYTES,
  };
  const pool = createReaderPool({
    size: Math.min(2, config.HTML_WORKERS),
    timeoutMs: config.HTML_TIMEOUT_MS,
    memoryBytes: readerMemoryBytes(config.FETCH_MAX_BYTES),
  });
  return {
    read: (body, file, signal) => pool.read({ body, file, limits }, signal),
    close: () => pool.close(),
  };
}
