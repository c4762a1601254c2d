// A job's page: live status over the job stream, results (table, raw, downloads), the crawl map as a tree by
// depth, failures by category with retry and re-extract, webhook deliveries with their attempts, cancel.
import { useEffect, useState } from 'preact/hooks';
import { type Api, call, type components } from './api.js';
import { StatusBadge, TERMINAL } from './jobs.js';
import { Busy, ErrorBox, Json, Scroll, Section, usd, useAction, useLoad, when } from './ui.js';

type CrawlMap = components['schemas']['CrawlMap'];
type Entry = CrawlMap['entries'][number];
type Format = 'json' | 'jsonl' | 'yaml';
const REFRESH_MS = 1500;

function download(name: string, text: string, type: string) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

function Results({ api, id, version }: { api: Api; id: string; version: number }) {
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

function MapTree({ entries }: { entries: Entry[] }) {
  const children = new Map<string | null, Entry[]>();
  for (const e of entries) children.set(e.parent_url, [...(children.get(e.parent_url) ?? []), e]);
  const known = new Set(entries.map((e) => e.url));
  const roots = entries.filter((e) => e.parent_url === null || !known.has(e.parent_url));
  const node = (e: Entry, seen: Set<string>) => (
    <li key={e.id} data-status={e.status}>
      <span class="depth">d{e.depth}</span> <StatusBadge status={e.status} /> <span class="url">{e.url}</span>
      {e.error_category && <span class="category"> {e.error_category}</span>}
      {!seen.has(e.url) && (children.get(e.url)?.length ?? 0) > 0 && (
        <ul>{children.get(e.url)?.map((c) => node(c, new Set([...seen, e.url])))}</ul>
      )}
    </li>
  );
  return <ul class="tree">{roots.map((r) => node(r, new Set()))}</ul>;
}

function CrawlMapView({
  api,
  id,
  map,
  onNewJob,
}: {
  api: Api;
  id: string;
  map: CrawlMap;
  onNewJob: (id: string) => void;
}) {
  const action = useAction();
  const failures = Object.entries(map.error_summary.by_category);
  const path = { params: { path: { id } } };
  return (
    <>
      <Section title="Crawl map">
        <p>
          {map.total} pages: {map.completed} completed, {map.failed} failed (max depth {map.max_depth})
        </p>
        <MapTree entries={map.entries} />
      </Section>
      <Section title="Failures">
        <ErrorBox error={action.error} />
        {failures.length === 0 ? (
          <p>No page failed.</p>
        ) : (
          <>
            <ul>
              {failures.map(([category, count]) => (
                <li key={category}>
                  <strong>{category}</strong>: {count} page{count === 1 ? '' : 's'}
                  <ul>
                    {map.entries
                      .filter((e) => e.error_category === category)
                      .map((e) => (
                        <li key={e.id}>
                          <span class="url">{e.url}</span> — {e.error_message}
                        </li>
                      ))}
                  </ul>
                </li>
              ))}
            </ul>
            <div class="row">
              <button
                type="button"
                disabled={action.busy}
                onClick={() =>
                  void action.run(async () =>
                    onNewJob((await call(api.api.POST('/api/v1/jobs/{id}/retry', path))).id),
                  )
                }
              >
                Retry failed pages
              </button>
              <button
                type="button"
                disabled={action.busy}
                onClick={() =>
                  void action.run(async () => {
                    const job = await call(
                      api.api.POST('/api/v1/jobs/{id}/reextract', { ...path, body: {} }),
                    );
                    onNewJob(job.id);
                  })
                }
              >
                Re-extract from stored pages
              </button>
            </div>
          </>
        )}
      </Section>
    </>
  );
}

function Deliveries({ api, id, version }: { api: Api; id: string; version: number }) {
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

function DebugCapture({ api, id }: { api: Api; id: string }) {
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

export function JobPage({ api, id }: { api: Api; id: string }) {
  const [version, setVersion] = useState(0);
  const [live, setLive] = useState('');
  const job = useLoad(
    () => call(api.api.GET('/api/v1/jobs/{id}', { params: { path: { id } } })),
    [id, version],
  );
  const isCrawl = job.data?.type === 'crawl';
  const map = useLoad(
    async () =>
      isCrawl ? call(api.api.GET('/api/v1/jobs/{id}/crawl-map', { params: { path: { id } } })) : null,
    [id, version, isCrawl],
  );
  const action = useAction();

  // The job stream: its events refresh what the page shows (at most every REFRESH_MS, so a busy crawl does not
  // spend the tenant's request rate), and `complete` at once.
  useEffect(() => {
    const stop = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = (now: boolean) => {
      if (timer && !now) return;
      clearTimeout(timer);
      timer = setTimeout(
        () => {
          timer = undefined;
          setVersion((v) => v + 1);
        },
        now ? 0 : REFRESH_MS,
      );
    };
    (async () => {
      for await (const event of api.stream(id, { signal: stop.signal })) {
        const data = event.data as { status?: string };
        setLive(`${event.event}${data.status ? `: ${data.status}` : ''}`);
        refresh(event.event === 'complete');
      }
    })().catch((err) => !stop.signal.aborted && setLive(`stream ended: ${(err as Error).message}`));
    return () => {
      stop.abort();
      clearTimeout(timer);
    };
  }, [api, id]);

  const j = job.data;
  const running = j && !TERMINAL.has(j.status);
  return (
    <>
      <p>
        <a href="#/jobs">← All jobs</a>
      </p>
      <h1>
        Job <code>{id}</code>
      </h1>
      <ErrorBox error={job.error ?? action.error} />
      {!j ? (
        <Busy text="Loading the job…" />
      ) : (
        <Section title="Status">
          <dl class="facts">
            <dt>Status</dt>
            <dd data-testid="job-status">
              <StatusBadge status={j.status} />
            </dd>
            <dt>Type</dt>
            <dd>{j.type}</dd>
            <dt>URL</dt>
            <dd class="url">{j.url}</dd>
            <dt>Pages</dt>
            <dd>
              {j.page_count} done, {j.failed_count} failed, {j.urls_queued} queued
            </dd>
            <dt>Tokens</dt>
            <dd>
              {j.token_usage_input} in / {j.token_usage_output} out
            </dd>
            <dt>Cost</dt>
            <dd>{usd(j.cost_usd)}</dd>
            <dt>Created</dt>
            <dd>{when(j.created_at)}</dd>
            {j.error_category && (
              <>
                <dt>Error</dt>
                <dd>
                  {j.error_category}: {j.error_message}
                </dd>
              </>
            )}
            {j.retry_of && (
              <>
                <dt>Retry of</dt>
                <dd>
                  <a href={`#/jobs/${j.retry_of}`}>{j.retry_of}</a>
                </dd>
              </>
            )}
          </dl>
          <p class="hint" aria-live="polite">
            Live: {live || 'connecting…'}
          </p>
          {running && (
            <button
              type="button"
              class="danger"
              onClick={() =>
                void action.run(async () => {
                  await api.cancel(id);
                  setVersion((v) => v + 1);
                })
              }
            >
              Cancel job
            </button>
          )}
        </Section>
      )}
      {j && <Results api={api} id={id} version={version} />}
      {map.data && (
        <CrawlMapView
          api={api}
          id={id}
          map={map.data}
          onNewJob={(next) => (location.hash = `#/jobs/${next}`)}
        />
      )}
      {j?.capture_debug && <DebugCapture api={api} id={id} />}
      {j && <Deliveries api={api} id={id} version={version} />}
    </>
  );
}
