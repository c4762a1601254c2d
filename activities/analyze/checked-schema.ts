// The suggested schema, checked on the page it was suggested for: applied to the page (a model call, as
// /extract would), it must yield items on a listing or values on a single item. When it yields nothing, the
// model is asked once more with what went wrong; when that yields nothing too, the schema built from the
// page's structure is kept, its sample read off the page by the structure's selectors (no model call). The
// result says which schema was kept and why; every model call made here is returned for usage.
import { validateSchemaYaml } from '../../shared/schema-input.js';
import type { SchemaSource } from '../../shared/schemas/analyze.js';
import type { StoreDeps } from '../common/deps.js';
import type { PageStructure } from '../reading/page-structure/page-structure.js';
import { suggestSchema } from '../reading/page-structure/suggested-schema.js';
import { ANALYSIS_SCHEMA } from './evidence.js';
import { type AnalysisJob, runModelStep, type StepSpend } from './model-step.js';
import {
  checkSample,
  emptyReason,
  type RecordShape,
  recordShape,
  retryFeedback,
  type SampleCheck,
  structureSample,
  yieldNote,
} from './sample-check.js';
import { answerOf, type Suggestion } from './suggest-analysis.js';

export interface CheckSchemaInput extends AnalysisJob {
  cleanedId: string;
  cleanDurationMs: number;
  structure: PageStructure;
  suggestion: Suggestion;
}

export interface CheckedSchema {
  schemaYaml: string;
  sampleData: unknown;
  source: SchemaSource;
  note: string;
  /** The model calls made here (samples, the suggestion asked again), in order. */
  spends: StepSpend[];
}

interface Tried {
  yaml: string;
  shape: RecordShape;
  data: unknown;
  check: SampleCheck;
}

type Step = 'sample' | 'sample_retry';

export async function checkedSchema(deps: StoreDeps, input: CheckSchemaInput): Promise<CheckedSchema> {
  const { suggestion } = input;
  const spends: StepSpend[] = [];
  const apply = applier(deps, input, spends);
  // Unusable fields were already replaced by the structure's: nothing of the model's to apply.
  const first = suggestion.schemaSource === 'model' ? await apply(suggestion.schemaYaml, 'sample') : null;
  if (first && first.check.filled > 0)
    return kept(first, 'model', `The model's schema, applied to this page: ${yieldNote(first)}.`, spends);
  const name = validateSchemaYaml(suggestion.schemaYaml).name;
  const retried = suggestion.evidenceId
    ? await askAgain(deps, input, { evidenceId: suggestion.evidenceId, first, name }, spends)
    : null;
  const second = retried && retried !== first?.yaml ? await apply(retried, 'sample_retry') : null;
  const firstSaid = !first
    ? "The model's suggestion held no usable field names"
    : `The model's first schema extracted ${first.shape.listing ? '0 items' : 'no value'} from this page ` +
      `(${first.shape.fields.join(', ')} came out empty)`;
  if (second && second.check.filled > 0) {
    const note = `${firstSaid}; asked again with what went wrong, its second schema: ${yieldNote(second)}.`;
    return kept(second, 'model_retry', note, spends);
  }
  const again = !suggestion.evidenceId
    ? 'the model was not asked again'
    : retried === null
      ? 'asked again, it still named no usable fields'
      : second === null
        ? 'asked again, it suggested the same schema'
        : 'asked again, its second schema extracted nothing either';
  return fromStructure(input, name, spends, `${firstSaid}; ${again}.`);
}

/** Applies a schema to the page through the model, as /extract would, and checks what came out. */
function applier(deps: StoreDeps, input: CheckSchemaInput, spends: StepSpend[]) {
  return async (yaml: string, step: Step): Promise<Tried> => {
    const schema = validateSchemaYaml(yaml);
    const { data, ...spend } = await runModelStep(deps, input, {
      step,
      contentId: input.cleanedId,
      schema,
      cleanDurationMs: input.cleanDurationMs,
    });
    spends.push(spend);
    const shape = recordShape(schema);
    return { yaml, shape, data, check: checkSample(data, shape) };
  };
}

const kept = (t: Tried, source: SchemaSource, note: string, spends: StepSpend[]): CheckedSchema => ({
  schemaYaml: t.yaml,
  sampleData: t.data,
  source,
  note,
  spends,
});

/** The analysis asked again, what went wrong first; the new schema's YAML, or null when its fields are unusable. */
async function askAgain(
  deps: StoreDeps,
  input: CheckSchemaInput,
  failed: { evidenceId: string; first: Tried | null; name: string },
  spends: StepSpend[],
): Promise<string | null> {
  const { first } = failed;
  const shape = first?.shape ?? { listing: false, fields: [] };
  const { data, ...spend } = await runModelStep(deps, input, {
    step: 'analysis_retry',
    contentId: failed.evidenceId,
    preface: retryFeedback(shape, input.structure, emptyReason(first?.shape ?? null)),
    schema: ANALYSIS_SCHEMA,
    cleanDurationMs: 0,
  });
  spends.push(spend);
  const answer = answerOf(data);
  const schema = suggestSchema(
    { schema_name: answer.schema_name ?? failed.name, fields: answer.fields },
    input.structure.fields,
    input.suggestion.pageType,
  );
  return schema.source === 'model' ? schema.yaml : null;
}

/** The schema of the structure's fields, with the values its selectors read on the page as the sample. */
function fromStructure(
  input: CheckSchemaInput,
  name: string,
  spends: StepSpend[],
  why: string,
): CheckedSchema {
  const { structure } = input;
  const { yaml } = suggestSchema({ schema_name: name }, structure.fields, input.suggestion.pageType);
  const shape = recordShape(validateSchemaYaml(yaml));
  const data = structureSample(structure.records ?? [], shape);
  const where = structure.itemSelector
    ? ` (${structure.items} items matching \`${structure.itemSelector}\`)`
    : '';
  const note =
    `${why} This schema is built from the page's structure${where}, and its sample was read off the page by ` +
    `the selectors in its field descriptions: ${yieldNote({ check: checkSample(data, shape), shape })}.`;
  return { schemaYaml: yaml, sampleData: data, source: 'page_structure', note, spends };
}
