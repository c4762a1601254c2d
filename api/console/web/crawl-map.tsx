// A crawl's map as a tree by depth (each page's status and error category), and its failures grouped by
// category with retry and re-extract.
import { type Api, call, type components } from './api.js';
import { StatusBadge } from './jobs.js';
import { ErrorBox, Section, useAction } from './ui.js';

type CrawlMap = components['schemas']['CrawlMap'];
type Entry = CrawlMap['entries'][number];

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

export function CrawlMapView({
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
