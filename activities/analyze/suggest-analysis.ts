// The suggestAnalysis activity: one model call over the page's evidence for the page type, a summary and the
// fields of one record; the suggested schema is built from those fields and checked with the parser /extract
// uses (or built from the structure's fields when the model's are unusable).
import type { Usage } from '../../shared/events.js';
import type { ActivityDeps } from '../deps.js';
import { categorized } from '../failure.js';
import type { JobLlmConfig } from '../llm/chain.js';
import { chosenPageType, structureSummary } from './analysis-result.js';
import { ANALYSIS_SCHEMA } from './evidence.js';
import { runModelStep } from './model-step.js';
import type { PageStructure } from './page-structure.js';
import type { PageType } from './page-type.js';
import { type ModelFields, suggestSchema } from './suggested-schema.js';

export interface SuggestAnalysisInput {
  jobId: string;
  tenantId: string;
  pageId: string;
  url: string;
  evidenceId: string;
  fetch: { finalUrl: string; fetchMode: string; fetchedAt: string; durationMs: number };
  structure: PageStructure;
  captureDebug: boolean;
  llm?: JobLlmConfig;
}

export interface Suggestion {
  pageType: PageType;
  siteSummary: string;
  schemaYaml: string;
  schemaSource: 'model' | 'structure';
  usage: Usage;
  priceKnown: boolean;
  provider: string;
  model: string;
  fallbackPosition: number;
  durationMs: number;
}

export function makeSuggestAnalysis(deps: ActivityDeps) {
  return async function suggestAnalysis(input: SuggestAnalysisInput): Promise<Suggestion> {
    return categorized(async () => {
      const step = await runModelStep(deps, {
        jobId: input.jobId,
        tenantId: input.tenantId,
        // Its own id, so its debug captures do not collide with the sample extraction's.
        pageId: `${input.pageId}-analysis`,
        contentId: input.evidenceId,
        url: input.url,
        depth: 0,
        parentUrl: null,
        schema: ANALYSIS_SCHEMA,
        fetch: input.fetch,
        cleanDurationMs: 0,
        jobType: 'analyze',
        captureDebug: input.captureDebug,
        llm: input.llm,
      });
      const answer = (typeof step.data === 'object' && step.data !== null ? step.data : {}) as ModelFields & {
        page_type?: unknown;
        site_summary?: unknown;
      };
      const pageType = chosenPageType(answer.page_type, input.structure.guess.type);
      const summary = typeof answer.site_summary === 'string' ? answer.site_summary.trim() : '';
      const schema = suggestSchema(answer, input.structure.fields, pageType);
      return {
        pageType,
        siteSummary: summary || structureSummary(input.structure, pageType),
        schemaYaml: schema.yaml,
        schemaSource: schema.source,
        usage: step.usage,
        priceKnown: step.priceKnown,
        provider: step.provider,
        model: step.model,
        fallbackPosition: step.fallbackPosition,
        durationMs: step.durationMs,
      };
    });
  };
}
