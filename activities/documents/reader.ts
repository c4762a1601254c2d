// The worker's document reader: documents are read in the HTML pool, under its time limit and heap bound,
// with the limits a web page has (FETCH_MAX_BYTES for the HTML) and a bound on what an Office zip unpacks to.
import type { Config } from '../../shared/config.js';
import type { HtmlPool } from '../html-pool/pool.js';
import type { DocumentReader } from './kinds.js';

/** What an Office file's parts may unpack to, as a multiple of FETCH_MAX_BYTES (50 MB by default). */
export const UNZIP_FACTOR = 10;

export function documentReader(
  html: HtmlPool | undefined,
  config: Pick<Config, 'FETCH_MAX_BYTES'>,
): DocumentReader | undefined {
  if (!html) return undefined;
  const limits = {
    maxHtmlChars: config.FETCH_MAX_BYTES,
    maxUnzippedBytes: UNZIP_FACTOR * config.FETCH_MAX_BYTES,
  };
  return (body, file, signal) => html.run({ kind: 'document', body, file, ...limits }, signal);
}
