// What activities need from the outside world, built once by the worker and passed to createActivities: the
// config and the stores (common/deps.ts) and the engines that fetch and read pages. It stands with fetching,
// the lowest concern that uses all three engines; lower concerns take only the part they use. The engines'
// keys are required (a worker without a browser or document readers says so with undefined), so the
// compiler tells StoreDeps from ActivityDeps: a function that needs an engine cannot be handed the stores.
import type { StoreDeps } from '../common/deps.js';
import type { HtmlPool } from '../reading/html-pool/pool.js';
import type { BrowserPool } from './browser/browser-pool.js';
import type { DocumentReaders } from './documents/reader.js';

/** The engines that fetch and read pages. */
export interface Engines {
  /** The worker's headless browser pool; undefined: no dynamic mode (auto then fails on app shells). */
  browser: BrowserPool | undefined;
  /** The threads that clean and analyse page HTML. */
  html: HtmlPool;
  /** The child processes that read PDFs and Office files; undefined: a document is unsupported content. */
  documents: DocumentReaders | undefined;
}

export interface ActivityDeps extends StoreDeps, Engines {}

/** What fetching a page in its modes needs. */
export type FetchDeps = Pick<ActivityDeps, 'config' | 'browser' | 'documents'>;
