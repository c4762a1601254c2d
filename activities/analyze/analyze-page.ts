// The analyzePage activity: fetch the page (in auto mode both statically and in the browser, to compare),
// parse its structure, store its cleaned content and the model's evidence by id, and return the compact
// structural summary. Page content never leaves the store. Parsing and cleaning run in the HTML pool.
import { ApplicationFailure } from '@temporalio/common';
import { ANALYSIS_CLEANER_CHAIN } from '../../shared/cleaners.js';
import { CategorizedError } from '../../shared/errors.js';
import type { FetchMode, ResolvedFetchMode } from '../../shared/schemas/common.js';
import { currentActivity } from '../common/activity-context.js';
import { categorized } from '../common/failure.js';
import { needsScripts } from '../fetching/browser/app-shell.js';
import type { ActivityDeps } from '../fetching/deps.js';
import { type FetchPageResult, makeFetchPage } from '../fetching/fetch-page.js';
import { htmlPoolOf } from '../reading/html-pool/pool.js';
import type { PageStructure } from '../reading/page-structure/page-structure.js';
import { type LinkSample, pickSamples } from './classify-links.js';
import { evidenceDocument } from './evidence.js';
import { type FetchEvidence, recommendFetchMode } from './fetch-mode.js';

export interface AnalyzePageInput {
  jobId: string;
  url: string;
  fetchMode: FetchMode;
  /** Made by the workflow; the stored contents are `<id>:static`, `:dynamic`, `:clean` and `:evidence`. */
  contentId: string;
}

export interface AnalyzePageResult {
  structure: PageStructure;
  fetch: { finalUrl: string; fetchMode: ResolvedFetchMode; fetchedAt: string; durationMs: number };
  recommended: { mode: ResolvedFetchMode; reason: string };
  cleanedId: string;
  evidenceId: string;
  cleanDurationMs: number;
  /** The linked pages depth 1 would classify (a few links of the top follow patterns). */
  linkSamples: LinkSample[];
}

interface Fetched {
  result: FetchPageResult;
  body: string;
  structure: PageStructure;
  evidence: FetchEvidence;
}

export function makeAnalyzePage(deps: ActivityDeps) {
  const fetchPage = makeFetchPage(deps);

  async function fetchIn(mode: ResolvedFetchMode, input: AnalyzePageInput): Promise<Fetched> {
    const result = await fetchPage({ ...input, fetchMode: mode, contentId: `${input.contentId}:${mode}` });
    const { body } = await deps.contents.get(result.contentId);
    const { structure, signals } = await htmlPoolOf(deps).run(
      { kind: 'structure', body, url: result.finalUrl },
      currentActivity()?.cancellationSignal,
    );
    const evidence = {
      textLength: signals.textLength,
      items: structure.items,
      scriptNeed: needsScripts(signals),
    };
    return { result, body, structure, evidence };
  }

  /** Auto: both modes when the worker has a browser; a static page missing its content counts as empty. */
  async function fetchBoth(input: AnalyzePageInput) {
    const statically = await fetchIn('static', input).catch((err: unknown) => err as Error);
    if (!deps.browser) {
      if (statically instanceof Error) throw statically;
      return { chosen: statically, recommended: recommendFetchMode(statically.evidence, null) };
    }
    const rendered = await fetchIn('dynamic', input).catch((err: unknown) => err as Error);
    if (statically instanceof Error) {
      // Content missing without scripts, or a wall a browser may get past: the rendered page decides.
      if (rendered instanceof Error) throw missingContent(statically) ? rendered : statically;
      return {
        chosen: rendered,
        recommended: { mode: 'dynamic' as const, reason: `static fetch failed: ${statically.message}` },
      };
    }
    if (rendered instanceof Error) {
      if (categoryOf(rendered) === 'cancelled') throw rendered;
      return {
        chosen: statically,
        recommended: { mode: 'static' as const, reason: 'the browser could not render the page' },
      };
    }
    const recommended = recommendFetchMode(statically.evidence, rendered.evidence);
    return { chosen: recommended.mode === 'dynamic' ? rendered : statically, recommended };
  }

  return async function analyzePage(input: AnalyzePageInput): Promise<AnalyzePageResult> {
    return categorized(async () => {
      const { chosen, recommended } =
        input.fetchMode === 'auto'
          ? await fetchBoth(input)
          : {
              chosen: await fetchIn(input.fetchMode, input),
              recommended: { mode: input.fetchMode, reason: `fetch_mode ${input.fetchMode} was asked for` },
            };
      const started = Date.now();
      const source = await deps.contents.get(chosen.result.contentId);
      // Content type text/html: analyze cleans whatever it fetched as HTML (an empty result fails the page).
      const cleaned = await htmlPoolOf(deps).run(
        {
          kind: 'clean',
          body: chosen.body,
          contentType: 'text/html',
          baseUrl: chosen.result.finalUrl,
          chain: ANALYSIS_CLEANER_CHAIN,
        },
        currentActivity()?.cancellationSignal,
      );
      const cleanedId = `${input.contentId}:clean`;
      const evidenceId = `${input.contentId}:evidence`;
      await deps.contents.put({ ...source, _id: cleanedId, kind: 'cleaned', body: cleaned });
      const cleanDurationMs = Date.now() - started;
      const evidence = evidenceDocument(chosen.structure, cleaned);
      await deps.contents.put({ ...source, _id: evidenceId, kind: 'cleaned', body: evidence });
      const { finalUrl, fetchMode, fetchedAt, durationMs } = chosen.result;
      return {
        structure: chosen.structure,
        fetch: { finalUrl, fetchMode, fetchedAt, durationMs },
        recommended,
        cleanedId,
        evidenceId,
        cleanDurationMs,
        linkSamples: pickSamples(chosen.structure.patterns),
      };
    });
  };
}

/** Fetch failures arrive as ApplicationFailures, the HTML pool's as CategorizedErrors. */
function categoryOf(err: Error): string | null {
  if (err instanceof ApplicationFailure) return err.type ?? null;
  return err instanceof CategorizedError ? err.category : null;
}

function missingContent(err: Error): boolean {
  return categoryOf(err) === 'insufficient_content';
}
