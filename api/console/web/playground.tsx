// The playground: one form that runs an extract (and shows data, provenance, tokens, cost, timings and the
// debug capture), or starts a crawl (then follows it on its job page) or an analysis.
import { useMemo, useState } from 'preact/hooks';
import { normalizeSchema } from '../../../shared/schema-input.js';
import { type Api, call, type components } from './api.js';
import { ExtractResult } from './extract-result.js';
import { Busy, ErrorBox, Json, Section, useAction } from './ui.js';

type Mode = 'extract' | 'crawl' | 'analyze';
type FetchMode = 'auto' | 'static' | 'dynamic';
type ExtractResponse = components['schemas']['ExtractResponse'];

const EXAMPLE_SCHEMA = '{\n  "title": "string",\n  "price": "number"\n}';

/** The schema as typed: a JSON object when it is one, else the text (YAML or a prompt; the API detects which). */
export function schemaValue(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') return parsed;
  } catch {}
  return text;
}

/** The input_format the service will detect (the same function it runs), or why the schema is refused. */
function detect(text: string): { format?: string; problem?: string } {
  if (!text.trim()) return {};
  try {
    const normalized = normalizeSchema(schemaValue(text));
    return { format: `${normalized.input_format} (${normalized.fields.length} fields)` };
  } catch (err) {
    return { problem: (err as Error).message };
  }
}

/** The page actions as typed: a JSON array of steps (the API validates each step and names a bad one). */
function parseActions(text: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`Page actions are not JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new Error('Page actions must be a JSON array of steps.');
  return parsed;
}

export function PlaygroundPage({ api }: { api: Api }) {
  const [mode, setMode] = useState<Mode>('extract');
  const [url, setUrl] = useState('');
  const [schema, setSchema] = useState(EXAMPLE_SCHEMA);
  const [fetchMode, setFetchMode] = useState<FetchMode>('auto');
  const [chain, setChain] = useState('markdown');
  const [debug, setDebug] = useState(false);
  const [maxPages, setMaxPages] = useState(10);
  const [maxDepth, setMaxDepth] = useState(1);
  const [followPattern, setFollowPattern] = useState('');
  const [actions, setActions] = useState('');
  const [result, setResult] = useState<{ extract?: ExtractResponse; capture?: unknown; other?: unknown }>({});
  const detected = useMemo(() => detect(schema), [schema]);
  const action = useAction();

  const cleanerChain = chain
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
    .map((name) => ({ name }));
  const run = () =>
    action.run(async () => {
      setResult({});
      const common = { url, fetch_mode: fetchMode, capture_debug: debug };
      if (mode === 'analyze') {
        setResult({ other: await call(api.api.POST('/api/v1/analyze', { body: common })) });
        return;
      }
      const steps = actions.trim() ? parseActions(actions) : undefined;
      const body = {
        ...common,
        schema: schemaValue(schema),
        cleaner_chain: cleanerChain,
        actions: steps,
      } as never;
      if (mode === 'crawl') {
        const options = {
          max_pages: maxPages,
          max_depth: maxDepth,
          follow_pattern: followPattern || undefined,
        };
        const job = await api.crawl({ ...(body as object), url, options } as never);
        location.hash = `#/jobs/${job.job_id}`;
        return;
      }
      const answer = await api.extract(body);
      if (!('data' in answer)) {
        location.hash = `#/jobs/${answer.job_id}`; // still running: follow it on its page
        return;
      }
      const capture = debug
        ? await call(
            api.api.GET('/api/v1/jobs/{id}/debug-capture', { params: { path: { id: answer.job_id } } }),
          )
        : null;
      setResult({ extract: answer, capture });
    });

  return (
    <>
      <h1>Playground</h1>
      <form
        class="card grid"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <fieldset class="row">
          <legend>Run</legend>
          {(['extract', 'crawl', 'analyze'] as const).map((m) => (
            <label key={m} class="check">
              <input type="radio" name="mode" checked={mode === m} onChange={() => setMode(m)} /> {m}
            </label>
          ))}
        </fieldset>
        <label>
          URL
          <input
            type="url"
            required
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
            placeholder="https://example.com/product"
          />
        </label>
        {mode !== 'analyze' && (
          <label>
            Schema: a {'{field: type}'} map, a structured schema (JSON or YAML with name and fields), or a
            prompt
            <textarea rows={7} value={schema} onInput={(e) => setSchema(e.currentTarget.value)} />
            <span class="hint" aria-live="polite" data-testid="input-format">
              {detected.format ? `Detected input_format: ${detected.format}` : detected.problem}
            </span>
          </label>
        )}
        <div class="row">
          <label>
            Fetch mode
            <select value={fetchMode} onChange={(e) => setFetchMode(e.currentTarget.value as FetchMode)}>
              <option value="auto">auto</option>
              <option value="static">static</option>
              <option value="dynamic">dynamic (browser)</option>
            </select>
          </label>
          {mode !== 'analyze' && (
            <label>
              Cleaner chain (comma-separated: markdown, readability, text, html, noop)
              <input value={chain} onInput={(e) => setChain(e.currentTarget.value)} />
            </label>
          )}
          <label class="check">
            <input type="checkbox" checked={debug} onChange={(e) => setDebug(e.currentTarget.checked)} />{' '}
            Capture debug (what the model is sent)
          </label>
        </div>
        {mode === 'extract' && (
          <label>
            Page actions (optional JSON array, run in the browser before extracting; see PageAction in /docs)
            <textarea
              rows={2}
              value={actions}
              placeholder='[{"kind": "click", "selector": "button.more"}]'
              onInput={(e) => setActions(e.currentTarget.value)}
            />
          </label>
        )}
        {mode === 'crawl' && (
          <div class="row">
            <label>
              Max pages
              <input
                type="number"
                min={1}
                max={10000}
                value={maxPages}
                onInput={(e) => setMaxPages(Number(e.currentTarget.value))}
              />
            </label>
            <label>
              Max depth
              <input
                type="number"
                min={0}
                max={10}
                value={maxDepth}
                onInput={(e) => setMaxDepth(Number(e.currentTarget.value))}
              />
            </label>
            <label>
              Follow pattern (regex on URLs)
              <input value={followPattern} onInput={(e) => setFollowPattern(e.currentTarget.value)} />
            </label>
          </div>
        )}
        <button type="submit" disabled={action.busy}>
          {mode === 'extract' ? 'Run extract' : mode === 'crawl' ? 'Start crawl' : 'Analyze'}
        </button>
      </form>
      {action.busy && <Busy text={`Running the ${mode}…`} />}
      <ErrorBox error={action.error} />
      {result.extract && <ExtractResult result={result.extract} debug={result.capture} />}
      {result.other != null && (
        <Section title="Analysis">
          <Json value={result.other} label="Analysis" />
        </Section>
      )}
    </>
  );
}
