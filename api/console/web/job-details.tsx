// The parts of a job's page below its status: results (table, raw, downloads), webhook deliveries with their
// attempts, and the debug capture.
import { useState } from 'preact/hooks';
import { type Api, call } from './api.js';
import { StatusBadge } from './jobs.js';
import { Busy, ErrorBox, Json, Scroll, Section, useAction, useLoad, when } from './ui.js';

type Format = 'json' | 'jsonl' | 'yaml';

function download(name: string, text: string, type: string) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

export function Results({ api, id, version }: { api: Api; id: string; version: number }) {
  const results = useLoad(() => api.results(id), [version]);
  const [raw, setRaw] = useState(false);
  const action = useAction();
  const save = (format: Format) =>
    action.run(async () => {
      const text =
        format === 'json'
          ? JSON.stringify(await api.results(id), null, 2)
          : await api.results(id, { format });
      download(`${id}.${format}`, text, format === 'json' ? 'application/json' : 'text/plain');
    });
  return (
    <Section title="Results">
      <div class="row">
        <button type="button" onClick={() => setRaw(!raw)} aria-pressed={raw}>
          {raw ? 'Show table' : 'Show raw'}
        </button>
        {(['json', 'jsonl', 'yaml'] as const).map((f) => (
          <button key={f} type="button" onClick={() => void save(f)}>
            Download {f.toUpperCase()}
          </button>
        ))}
      </div>
      <ErrorBox error={results.error ?? action.error} />
      {raw ? (
        <Json value={results.data} label="Raw results" />
      ) : (
        <Scroll label="Results table">
          <table>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Status</th>
                <th scope="col">Data</th>
              </tr>
            </thead>
            <tbody>
              {results.data?.map((r) => (
                <tr key={r.id}>
                  <td class="url">{r.url}</td>
                  <td>
                    <StatusBadge status={r.status} />
                  </td>
                  <td>
                    <code class="data">{JSON.stringify(r.data)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
    </Section>
  );
}

export function Deliveries({ api, id, version }: { api: Api; id: string; version: number }) {
  const list = useLoad(
    () => call(api.api.GET('/api/v1/jobs/{id}/webhook-deliveries', { params: { path: { id } } })),
    [version],
  );
  if (!list.data?.deliveries.length) return null;
  return (
    <Section title="Webhook deliveries">
      <ul>
        {list.data.deliveries.map((d) => (
          <li key={d.id}>
            <strong>{d.event_type}</strong> → {d.url}: {d.status} ({d.attempt_number}/{d.max_attempts})
            <ul>
              {d.attempts.map((a) => (
                <li key={a.attempt_number}>
                  #{a.attempt_number} {when(a.at)}: {a.success ? 'delivered' : 'failed'}
                  {a.status_code ? ` (HTTP ${a.status_code})` : ''} in {a.response_time_ms} ms
                  {a.error_message ? ` — ${a.error_message}` : ''}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </Section>
  );
}

export function DebugCapture({ api, id }: { api: Api; id: string }) {
  const [open, setOpen] = useState(false);
  const capture = useLoad(
    async () =>
      open ? call(api.api.GET('/api/v1/jobs/{id}/debug-capture', { params: { path: { id } } })) : null,
    [open],
  );
  return (
    <Section title="Debug capture">
      <details onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>What the model was sent, and what it answered</summary>
        <ErrorBox error={capture.error} />
        {capture.data ? (
          <Json value={capture.data} label="Debug capture" />
        ) : (
          open && <Busy text="Loading…" />
        )}
      </details>
    </Section>
  );
}
