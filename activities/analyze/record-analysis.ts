// The recordAnalysis activity: applies the suggested schema to the page (sample_data, through the extraction
// path) and checks that it yields something, asking the model again or falling back to the structure's schema
// when it does not (checked-schema.ts); assembles the analysis and records it as the job's one page result,
// with the usage of every model call, under the seq the workflow reserved. The analysis never passes back
// through workflow history.
import type { JobEvent, PageCompletedData } from '../../shared/events.js';
import { AnalysisResultSchema } from '../../shared/schemas/analyze.js';
import type { ResolvedFetchMode } from '../../shared/schemas/common.js';
import type { StoreDeps } from '../common/deps.js';
import { categorized } from '../common/failure.js';
import type { PageStructure } from '../reading/page-structure/page-structure.js';
import { composeAnalysis } from './analysis-result.js';
import { checkedSchema } from './checked-schema.js';
import type { LinkClass } from './classify-links.js';
import { type AnalysisJob, addUsage } from './model-step.js';
import type { Suggestion } from './suggest-analysis.js';

export interface RecordAnalysisInput extends AnalysisJob {
  fetch: AnalysisJob['fetch'] & { fetchMode: ResolvedFetchMode };
  cleanedId: string;
  cleanDurationMs: number;
  structure: PageStructure;
  recommendedFetchMode: ResolvedFetchMode;
  suggestion: Suggestion;
  classes: LinkClass[];
  eventSeq: number;
  eventId: string;
}

export function makeRecordAnalysis(deps: StoreDeps) {
  /** `alongside`: events appended with the analysis (analyzeJob's job.completed; never passed by a workflow). */
  return async function recordAnalysis(
    input: RecordAnalysisInput,
    alongside: () => JobEvent[] = () => [],
  ): Promise<{ pageType: string }> {
    return categorized(async () => {
      const { suggestion } = input;
      const checked = await checkedSchema(deps, input);
      const spends = [suggestion, ...checked.spends];
      const analysis = AnalysisResultSchema.parse(
        composeAnalysis({
          structure: input.structure,
          pageType: suggestion.pageType,
          siteSummary: suggestion.siteSummary,
          suggestedSchema: checked.schemaYaml,
          recommendedFetchMode: input.recommendedFetchMode,
          classes: input.classes,
        }),
      );
      const data: PageCompletedData = {
        page_id: input.pageId,
        url: input.url,
        final_url: input.fetch.finalUrl,
        depth: 0,
        parent_url: null,
        data: {
          ...analysis,
          sample_data: checked.sampleData,
          schema_source: checked.source,
          schema_note: checked.note,
        },
        input_format: 'structured',
        fetch_mode: input.fetch.fetchMode,
        fetched_at: input.fetch.fetchedAt,
        fetch_duration_ms: input.fetch.durationMs,
        clean_duration_ms: input.cleanDurationMs,
        extract_duration_ms: spends.reduce((sum, s) => sum + s.durationMs, 0),
        provider: suggestion.provider,
        model: suggestion.model,
        fallback_position: suggestion.fallbackPosition,
        usage: checked.spends.reduce((sum, s) => addUsage(sum, s.usage), suggestion.usage),
        price_known: spends.every((s) => s.priceKnown),
      };
      await deps.events.append([
        {
          type: 'page.completed',
          data,
          job_id: input.jobId,
          tenant_id: input.tenantId,
          seq: input.eventSeq,
          event_id: input.eventId,
          at: new Date().toISOString(),
        },
        ...alongside(),
      ]);
      return { pageType: analysis.page_type };
    });
  };
}
