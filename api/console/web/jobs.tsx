// The jobs list: newest first, filtered by type and status (by the API), refreshed while any shown job is still
// running.
import { useEffect, useState } from 'preact/hooks';
import { type Api, call, type components } from './api.js';
import { ErrorBox, Scroll, usd, useLoad, when } from './ui.js';

type Job = components['schemas']['Job'];
export const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const TYPES = ['extract', 'crawl', 'analyze', 'map'] as const;
const STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
type JobType = (typeof TYPES)[number];
type JobStatus = (typeof STATUSES)[number];

export const StatusBadge = ({ status }: { status: string }) => (
  <span class={`badge s-${status}`}>{status}</span>
);

export function JobsPage({ api }: { api: Api }) {
  const [type, setType] = useState<JobType | ''>('');
  const [status, setStatus] = useState<JobStatus | ''>('');
  // The service filters while it walks all the tenant's jobs: the 100 newest that match, not a filter of the
  // 100 newest.
  const query = { limit: 100, ...(type ? { type } : {}), ...(status ? { status } : {}) } as const;
  const list = useLoad(() => call(api.api.GET('/api/v1/jobs', { params: { query } })), [type, status]);
  const jobs: Job[] = list.data?.jobs ?? [];
  const live = jobs.some((j) => !TERMINAL.has(j.status));
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(list.reload, 3000);
    return () => clearInterval(timer);
  }, [live, list.reload]);

  return (
    <>
      <h1>Jobs</h1>
      <ErrorBox error={list.error} />
      <div class="row filters">
        <label>
          Type
          <select value={type} onChange={(e) => setType(e.currentTarget.value as JobType | '')}>
            <option value="">all</option>
            {TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value as JobStatus | '')}>
            <option value="">all</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <a class="button" href="#/playground">
          New job
        </a>
      </div>
      <Scroll label="Jobs table">
        <table class="jobs">
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Type</th>
              <th scope="col">Status</th>
              <th scope="col">URL</th>
              <th scope="col">Pages</th>
              <th scope="col">Cost</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => (
              <tr key={j.id} data-job-id={j.id}>
                <td>
                  <a href={`#/jobs/${j.id}`}>{j.id.slice(0, 12)}…</a>
                </td>
                <td>{j.type}</td>
                <td>
                  <StatusBadge status={j.status} />
                </td>
                <td class="url">{j.url}</td>
                <td>
                  {j.page_count}
                  {j.failed_count > 0 ? ` (${j.failed_count} failed)` : ''}
                </td>
                <td>{usd(j.cost_usd)}</td>
                <td>{when(j.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {list.data && jobs.length === 0 && (
          <p data-testid="no-jobs">
            {type || status ? 'No job matches these filters.' : 'No jobs yet: start one in the playground.'}
          </p>
        )}
      </Scroll>
    </>
  );
}
