// The suggestAnalysis activity: one model call over the page's evidence for the page type, a summary and the
// fields of one record; the suggested schema is built from those fields and checked with the parser /extract
// uses (or built from the structure's fields when the model's are unusable). recordAnalysis checks it against
// the page and may ask again (checked-schema.ts).
import type { StoreDeps } from '../common/deps.js';
import { categorized } from '../common/failure.js';
import type { PageStructure } from '../reading/page-structure/page-structure.js';
import type { PageType } from '../reading/page-structure/page-type.js';
import { type ModelFields, suggestSchema } from '../reading/page-structure/suggested-schema.js';
import { chosenPageType, structureSummary } from './analysis-result.js';
import { ANALYSIS_SCHEMA } from './evidence.js';
import { type AnalysisJob, runModelStep, type StepSpend } from './model-step.js';

export interface SuggestAnalysisInput extends AnalysisJob {
  evidenceId: string;
  structure: PageStructure;
}

export interface Suggestion extends StepSpend {
  pageType: PageType;
  siteSummary: string;
  schemaYaml: string;
  schemaSource: 'model' | 'structure';
  /** The evidence the model saw, for asking again. Absent on suggestions made before the check existed. */
  evidenceId?: string;
}

type Answer = ModelFields & { page_type?: unknown; site_summary?: unknown };
export const answerOf = (data: unknown): Answer => (typeof data === 'object' && data !== null ? data : {});

export function makeSuggestAnalysis(deps: StoreDeps) {
  return async function suggestAnalysis(input: SuggestAnalysisInput): Promise<Suggestion> {
    return categorized(async () => {
      const { evidenceId, structure, ...job } = input;
      const { data, ...spend } = await runModelStep(deps, job, {
        step: 'analysis',
        contentId: evidenceId,
        schema: ANALYSIS_SCHEMA,
        cleanDurationMs: 0,
      });
      const answer = answerOf(data);
      const pageType = chosenPageType(answer.page_type, structure.guess.type);
      const summary = typeof answer.site_summary === 'string' ? answer.site_summary.trim() : '';
      const schema = suggestSchema(answer, structure.fields, pageType);
      return {
        ...spend,
        pageType,
        siteSummary: summary || structureSummary(structure, pageType),
        schemaYaml: schema.yaml,
        schemaSource: schema.source,
        evidenceId,
      };
    });
  };
}
