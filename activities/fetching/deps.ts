// What activities need from the outside world, built once by the worker and passed to createActivities: the
// config and the stores (common/deps.ts) and the engines that fetch and read pages. It stands with fetching,
// the lowest concern that uses all three engines; lower concerns take only the part they use.
import type { StoreDeps } from '../common/deps.js';
import type { HtmlPool } from '../reading/html-pool/pool.js';
import type { BrowserPool } from './browser/browser-pool.js';
import type { DocumentReaders } from './documents/reader.js';

export interface ActivityDeps extends StoreDeps {
  /** The worker's headless browser pool; without it there is no dynamic mode (auto then fails on app shells). */
  browser?: BrowserPool;
  /** The threads that clean and analyse page HTML; without it cleaning, crawl pages and analyze fail. */
  html?: HtmlPool;
  /** The child processes that read PDFs and Office files; without them a document is unsupported content. */
  documents?: DocumentReaders;
}
