// A page's data from content in hand: its structured data first, then a learned extractor (crawls), then the
// model for what both left; each value's provenance with it. Plain functions over the model port, so an
// extract's page, a crawl's and an analysis answer alike, and tests run it with an in-memory model.

import type { PageCompletedData } from '../../shared/events.js';
import type { StructuredItem } from '../../shared/structured-data.js';
import {
  mergeAnswer,
  planFromStructuredData,
  type StructuredPlan,
  sourceOf,
} from '../reading/structured-data/answer.js';
import type { AnswerInput, AnswerPorts, ExtractWithModelResult, LearnedAnswer } from './extraction-types.js';
import { noModel } from './page-result.js';
import { provenanceOf } from './provenance.js';

/** Where a page's answer starts from: its structured data, or the plan made of it, and a learned answer. */
export interface AnswerSources {
  structured?: StructuredItem[] | null;
  /** The plan already made of the structured data (planOf); undefined: made here from `structured`. */
  plan?: StructuredPlan | null;
  learned?: LearnedAnswer;
}

/**
 * The page's result, not recorded (an analysis sums several such answers into one result). The model is
 * asked only what neither the structured data nor a learned extractor answered.
 */
export async function answerPage(
  ports: AnswerPorts,
  input: AnswerInput,
  body: string,
  from: AnswerSources = {},
): Promise<{ page: PageCompletedData; result: ExtractWithModelResult }> {
  const { config, model } = ports;
  const started = Date.now();
  const { learned } = from;
  const plan = from.plan !== undefined ? from.plan : planOf(input, body, from.structured);
  if (plan && !plan.rest) return noModel(config, input, plan, undefined, Date.now() - started);
  const open = (plan?.rest ?? input.schema).fields.filter((f) => !(learned && f.name in learned.data));
  if (learned && open.length === 0) return noModel(config, input, plan, learned, Date.now() - started);
  const narrowed = plan?.rest || learned;
  const asked = narrowed ? { ...input, schema: { ...input.schema, fields: open } } : input;
  const answer = await model.ask(asked, body, started);
  const own = learned ? learnedOnly(learned, plan) : undefined;
  const modelData = answer.page.data;
  const answered =
    typeof modelData === 'object' && modelData !== null && !Array.isArray(modelData)
      ? { ...modelData, ...own?.data }
      : { ...own?.data };
  const data = plan || own ? mergeAnswer(input.schema, mappingOf(plan), answered) : answer.page.data;
  const provenance = provenanceOf(
    input.schema,
    data,
    { structured: plan?.mapping.paths, learned: own?.selectors },
    body.slice(0, config.LLM_MAX_CONTENT_CHARS),
  );
  // The answer's debug capture shows where each value came from as well.
  if (answer.captureId) await model.noteProvenance(answer.captureId, provenance);
  const source = sourceOf(plan);
  if (own && Object.keys(own.data).length > 0) source.data_source = 'mixed';
  return { page: { ...answer.page, data, ...source, provenance }, result: answer.result };
}

/** What the page's structured data answers of the schema (null: nothing, or the job turned it off). */
export function planOf(
  input: Pick<AnswerInput, 'schema' | 'structuredData'>,
  body: string,
  structured?: StructuredItem[] | null,
): StructuredPlan | null {
  return input.structuredData === false ? null : planFromStructuredData(input.schema, structured, body);
}

/** A learned extractor's values and selectors for the fields structured data did not answer. */
function learnedOnly(learned: LearnedAnswer, plan: StructuredPlan | null): LearnedAnswer {
  const out: LearnedAnswer = { data: {}, selectors: {} };
  for (const [name, value] of Object.entries(learned.data)) {
    if (plan && name in plan.mapping.data) continue;
    out.data[name] = value;
    const selector = learned.selectors[name];
    if (selector !== undefined) out.selectors[name] = selector;
  }
  return out;
}

const mappingOf = (plan: StructuredPlan | null) =>
  plan?.mapping ?? { data: {}, answered: [], missing: [], paths: {} };
