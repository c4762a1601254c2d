// Builders for a job's event log, for tests that write events by hand (the way the workflows would).
import type { JobEvent, JobEventBody, Usage } from '../../shared/events.js';
import type { JobType } from '../../shared/temporal-names.js';

const USAGE: Usage = {
  input_tokens: 100,
  output_tokens: 20,
  llm_cost_usd: 0.001,
  cost_usd: 0.001,
  is_byok: false,
};

export function jobLog(jobId: string, tenantId: string) {
  let seq = 0;
  const event = (body: JobEventBody): JobEvent =>
    ({
      ...body,
      job_id: jobId,
      tenant_id: tenantId,
      seq: seq++,
      event_id: `${jobId}-${seq}`,
      at: new Date().toISOString(),
    }) as JobEvent;
  return {
    created: (jobType: JobType = 'crawl', url = 'https://example.com/') =>
      event({
        type: 'job.created',
        data: {
          job_type: jobType,
          url,
          capture_debug: false,
          workflow_id: `${jobType}-${jobId}`,
          idempotency_key: null,
        },
      }),
    started: () => event({ type: 'job.started', data: {} }),
    discovered: (urls: string[], firstNode: number) =>
      event({
        type: 'crawl.discovered',
        data: {
          nodes: urls.map((url, i) => ({
            node: firstNode + i,
            url,
            parent_url: null,
            depth: 0,
            status: 'pending' as const,
          })),
        },
      }),
    completed: (url: string, data: unknown, node?: number) =>
      event({
        type: 'page.completed',
        data: {
          node,
          page_id: `page-${seq}`,
          url,
          final_url: url,
          depth: 0,
          parent_url: null,
          data,
          input_format: 'fields',
          fetch_mode: 'static',
          fetched_at: new Date().toISOString(),
          fetch_duration_ms: 5,
          clean_duration_ms: 1,
          extract_duration_ms: 7,
          provider: 'openai',
          model: 'gpt-4o-mini',
          fallback_position: 0,
          usage: USAGE,
          price_known: true,
        },
      }),
    failed: (url: string, node?: number, type: 'page.failed' | 'page.skipped' = 'page.failed') =>
      event({
        type,
        data: {
          node,
          page_id: `page-${seq}`,
          url,
          depth: 0,
          parent_url: null,
          error_category: 'http_status',
          error_message: 'HTTP 404',
        },
      }),
    jobCompleted: () => event({ type: 'job.completed', data: { duration_ms: 42 } }),
    jobFailed: () =>
      event({
        type: 'job.failed',
        data: { error_category: 'http_status', error_message: 'HTTP 404', duration_ms: 9 },
      }),
  };
}
