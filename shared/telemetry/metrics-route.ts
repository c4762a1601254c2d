// GET /metrics on the API: Prometheus text, outside /api/v1 so no tenant key applies (a tenant's key is not
// an operator's). Bound like the rest of the API (HOST, PORT); when METRICS_TOKEN is set a scrape must send
// it as a bearer token. Without a token it is served only when the API listens on loopback: elsewhere the
// route does not exist (404), as anyone reaching the port would read it. The counts come from the job events this process writes (job.created, and the
// failures of jobs whose workflow never started) and from Temporal's visibility (jobs running, crawl frontiers).
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { jobEventCounter } from '../metrics/job-events.js';
import { readRunningJobs } from '../metrics/jobs-running.js';
import { createMetrics, type ServiceMetrics } from '../metrics/registry.js';
import { scrape } from '../metrics/scrape.js';
import { isLoopbackHost } from '../net/loopback-host.js';
import type { EventStore } from '../store/event-store.js';
import type { JobReader } from '../store/jobs.js';

export const METRICS_PATH = '/metrics';

interface MetricsDeps {
  config: Pick<Config, 'HOST' | 'METRICS_TOKEN' | 'METRICS_TENANT_LABELS'>;
  events: EventStore;
  jobs: JobReader;
  temporal: Client;
}

/** Registers the route and the counting; the registry is the caller's (a test's) or a new one. */
export function registerMetrics(
  app: FastifyInstance,
  deps: MetricsDeps,
  metrics: ServiceMetrics = createMetrics({ tenantLabels: deps.config.METRICS_TENANT_LABELS }),
): ServiceMetrics {
  const stop = deps.events.onWritten(jobEventCounter(metrics));
  app.addHook('onClose', async () => stop());
  readRunningJobs(metrics, deps.temporal, deps.jobs);
  if (!deps.config.METRICS_TOKEN && !isLoopbackHost(deps.config.HOST)) {
    app.log.warn(
      { host: deps.config.HOST },
      'GET /metrics is off: the API listens beyond loopback and METRICS_TOKEN is not set',
    );
    return metrics;
  }
  app.get(METRICS_PATH, { schema: { hide: true }, logLevel: 'warn' }, async (request, reply) => {
    const answer = await scrape(metrics.registry, request.headers.authorization, deps.config.METRICS_TOKEN);
    return reply.code(answer.status).headers(answer.headers).type(answer.contentType).send(answer.body);
  });
  return metrics;
}
