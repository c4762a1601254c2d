// A job's page: live status over the job stream, cancel, and the job's details (job-details.tsx) and, for a
// crawl, its map and failures (crawl-map.tsx).
import { useEffect, useState } from 'preact/hooks';
import { type Api, call } from './api.js';
import { CrawlMapView } from './crawl-map.js';
import { DebugCapture, Deliveries, Results } from './job-details.js';
import { StatusBadge, TERMINAL } from './jobs.js';
import { Busy, ErrorBox, Section, usd, useAction, useLoad, when } from './ui.js';

const REFRESH_MS = 1500;

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
