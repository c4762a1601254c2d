// What every fetch mode hands back, and the checks that decide whether it is a usable page: a bot wall, an
// error status, or a page whose content needs scripts are failures (or, in auto mode, a reason to render).

import { CategorizedError } from '../../shared/errors.js';
import type { ActionOutcome } from '../../shared/schemas/actions.js';
import type { ResolvedFetchMode } from '../../shared/schemas/common.js';
import { type PageSignals, scanPage } from '../reading/page-signals.js';
import { needsScripts, type ScriptNeed } from './browser/app-shell.js';
import { detectBotWall } from './browser/bot-wall.js';
import type { Screenshot } from './browser/screenshot.js';
import { isDocumentType } from './documents/kinds.js';

/** A page fetched in one mode and kept in memory: its document, how and when it was fetched. */
export interface FetchedPage {
  doc: FetchedDocument;
  mode: ResolvedFetchMode;
  fetchedAt: string;
  durationMs: number;
}

export interface FetchedDocument {
  /** Final URL, after redirects. */
  url: string;
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** Media type without parameters, lower-cased. */
  contentType: string;
  /** The page; a PDF or Office file (contentType says which) as the HTML it was read into. */
  body: string;
  /** Size of the body as received (static) or as rendered (dynamic). */
  bytes: number;
  /** Dynamic mode with page actions: each step's outcome. */
  actions?: ActionOutcome[];
  /** Screenshots the actions took (stored with the page; never passed on to a workflow). */
  screenshots?: Screenshot[];
  /**
   * Dynamic mode: the page's scripts (or a meta refresh), not the server's redirects, took it to another
   * origin than the one that answered. What was read is not that URL's content: it is not kept as the URL's.
   */
  crossOriginNavigation?: true;
}

/**
 * Web page types; documents (activities/fetching/documents/kinds.ts) are read into HTML, anything else is
 * `unsupported_content`.
 */
export const DOCUMENT_TYPES = ['text/html', 'application/xhtml+xml', 'text/plain'];

export interface Assessment {
  /** A bot wall or captcha, by kind. */
  wall: string | null;
  /** Why the page's content is missing without scripts (HTML only). */
  scriptNeed: ScriptNeed | null;
  signals: PageSignals | null;
}

export function assess(doc: FetchedDocument): Assessment {
  // A document read into HTML has no scripts to need, and a bot wall does not send a PDF.
  if (doc.contentType === 'text/plain' || isDocumentType(doc.contentType)) {
    return { wall: null, scriptNeed: null, signals: null };
  }
  const signals = scanPage(doc.body);
  const wall = detectBotWall({ status: doc.status, headers: doc.headers, signals });
  return { wall, scriptNeed: needsScripts(signals), signals };
}

export function unsupportedContent(mime: string): CategorizedError {
  return new CategorizedError(
    'unsupported_content',
    `the page is ${mime}, not HTML, text, PDF or Office`,
    false,
    {
      contentType: mime,
    },
  );
}

/** Throws for a bot wall, then for an error status: the two ways a response is not the page at all. */
export function refuseUnusable(doc: FetchedDocument, assessment: Assessment): void {
  if (assessment.wall !== null) {
    throw new CategorizedError(
      'blocked',
      `${hostOf(doc.url)} answered with a bot wall (${assessment.wall})`,
      false,
      {
        wall: assessment.wall,
        status: doc.status,
      },
    );
  }
  if (doc.status >= 400) {
    // 429 and 5xx may pass; other 4xx will not change on a retry.
    const retryable = doc.status === 429 || doc.status >= 500;
    throw new CategorizedError('http_status', `the page answered HTTP ${doc.status}`, retryable, {
      status: doc.status,
    });
  }
}

/** Throws when the page has no text a reader would see; a model given nothing would invent something. */
export function refuseEmpty(doc: FetchedDocument, assessment: Assessment, hint = ''): void {
  const empty = assessment.signals ? assessment.signals.textLength === 0 : doc.body.trim() === '';
  if (empty) throw new CategorizedError('insufficient_content', `the page has no visible content${hint}`);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
