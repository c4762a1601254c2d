// What a monitor request stands for: the job each run creates, prepared exactly as POST /extract, /crawl or
// /sites/{id}/crawl prepares one (schema, model settings, webhooks), and the request as GET shows it.
import { SiteCrawlRequestSchema } from '../shared/schemas/crawl.js';
import { readJobSpec, UnreadableSpecError } from '../shared/schemas/job-spec.js';
import type { MonitorRequest } from '../shared/schemas/monitors.js';
import { type MonitorDoc, type MonitorFields, monitorSecretsId } from '../shared/store/monitors.js';
import { MASKED_HEADER_VALUE } from '../shared/webhooks.js';
import type { ApiDeps } from './deps.js';
import { crawlSpec, extractSpec, prepareJobRequest } from './job-requests.js';
import { ProblemError } from './problem.js';
import { siteCrawlRequest } from './site-crawl-request.js';

export interface PreparedMonitor {
  fields: MonitorFields;
  /** Seals the request's secrets (model key, webhook destinations) under the monitor, as a job's are. */
  sealSecrets: () => Promise<void>;
}

/** The request as given, without what is secret: a key or webhook secret left out, header values masked. */
function shown(kind: string, request: object): Record<string, unknown> {
  const out = structuredClone(request) as Record<string, unknown>;
  const llm = out.llm_config as Record<string, unknown> | undefined;
  if (llm && 'api_key' in llm) {
    delete llm.api_key;
    llm.has_key = true;
  }
  const hook = out.webhook as Record<string, unknown> | undefined;
  if (hook) {
    if ('secret' in hook) {
      delete hook.secret;
      hook.has_secret = true;
    }
    const headers = hook.headers as { name: string; value: string }[] | undefined;
    if (headers) hook.headers = headers.map((h) => ({ name: h.name, value: MASKED_HEADER_VALUE }));
  }
  return { [kind]: out };
}

async function crawlOfSite(deps: ApiDeps, tenantId: string, body: MonitorRequest) {
  const site = await deps.sites.get(tenantId, body.site_id ?? '');
  if (!site) {
    const message = `no site ${body.site_id}`;
    throw new ProblemError({
      slug: 'validation-error',
      detail: message,
      errors: [{ location: 'body.site_id', message, value: body.site_id }],
    });
  }
  return { site, crawl: siteCrawlRequest(site, body.site_crawl ?? SiteCrawlRequestSchema.parse({})) };
}

export async function prepareMonitor(
  deps: ApiDeps,
  tenantId: string,
  monitorId: string,
  body: MonitorRequest,
): Promise<PreparedMonitor> {
  const common = {
    schedule: {
      cron: body.schedule.cron ?? null,
      every: body.schedule.every ?? null,
      timezone: body.schedule.timezone,
    },
    paused: body.paused,
    key_field: body.key_field ?? null,
  };
  const holder = monitorSecretsId(tenantId, monitorId);
  if (body.extract) {
    const prepared = await prepareJobRequest(deps, tenantId, body.extract);
    return {
      fields: {
        ...common,
        name: body.name ?? body.extract.url,
        kind: 'extract',
        url: body.extract.url,
        site_id: null,
        request: shown('extract', body.extract),
        job: {
          request: extractSpec(body.extract, prepared),
          capture_debug: body.extract.capture_debug,
        },
      },
      sealSecrets: async () => prepared.beforeStart?.(holder),
    };
  }
  const { site, crawl } = body.crawl
    ? { site: null, crawl: body.crawl }
    : await crawlOfSite(deps, tenantId, body);
  const prepared = await prepareJobRequest(deps, tenantId, crawl);
  return {
    fields: {
      ...common,
      name: body.name ?? site?.name ?? crawl.url,
      kind: 'crawl',
      url: crawl.url,
      site_id: site?.id ?? null,
      request: body.crawl ? shown('crawl', body.crawl) : shown('site_crawl', body.site_crawl ?? {}),
      job: {
        request: crawlSpec(crawl, prepared, site?.id),
        capture_debug: crawl.capture_debug,
        max_depth: crawl.options.max_depth,
      },
    },
    sealSecrets: async () => prepared.beforeStart?.(holder),
  };
}

/**
 * Whether the runs' job changes (a new baseline follows): both specs read with the JobSpec schema, so a
 * monitor stored before specs had a kind compares by its fields.
 */
export function jobSpecChanged(before: MonitorDoc, fields: MonitorFields): boolean {
  const read = (doc: Pick<MonitorDoc, 'job' | 'kind'>) => {
    try {
      return JSON.stringify(readJobSpec(doc.job.request, doc.kind));
    } catch (err) {
      if (err instanceof UnreadableSpecError) return null;
      throw err;
    }
  };
  const was = read(before);
  return was === null || was !== read(fields);
}
