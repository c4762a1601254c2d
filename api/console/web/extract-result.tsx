// An extract's answer in the playground: model, tokens, cost, timings, the data, each field's provenance and the
// debug capture.
import type { components } from './api.js';
import { Json, Section, usd } from './ui.js';

type ExtractResponse = components['schemas']['ExtractResponse'];

export function ExtractResult({ result, debug }: { result: ExtractResponse; debug: unknown }) {
  const m = result.metadata;
  return (
    <Section title="Result">
      <dl class="facts" data-testid="extract-facts">
        <dt>Model</dt>
        <dd>{m.provider ? `${m.provider} / ${m.model}` : m.data_source}</dd>
        <dt>Tokens</dt>
        <dd>
          {result.usage.input_tokens} in / {result.usage.output_tokens} out
        </dd>
        <dt>Cost</dt>
        <dd data-testid="extract-cost">{usd(result.usage.cost_usd)}</dd>
        <dt>Timings</dt>
        <dd>
          fetch {m.fetch_duration_ms} ms · clean {m.clean_duration_ms} ms · model {m.extract_duration_ms} ms
        </dd>
        <dt>Input format</dt>
        <dd>{result.input_format}</dd>
        <dt>Job</dt>
        <dd>
          <a href={`#/jobs/${result.job_id}`}>{result.job_id}</a>
        </dd>
      </dl>
      <h3>Data</h3>
      <Json value={result.data} label="Extracted data" />
      <h3>Provenance</h3>
      <table>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Source</th>
            <th scope="col">Where</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(m.provenance).map(([field, p]) => (
            <tr key={field}>
              <td>{field}</td>
              <td>{p.source}</td>
              <td>
                {p.path ?? p.selector ?? (p.in_page == null ? '–' : p.in_page ? 'in page' : 'not in page')}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {debug != null && (
        <details>
          <summary>Debug capture (what the model was sent)</summary>
          <Json value={debug} label="Debug capture" />
        </details>
      )}
    </Section>
  );
}
