// Stored sites of the caller's tenant.
import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Candidate } from '../../shared/learned-extractor.js';
import type { AnalysisResult } from '../../shared/schemas/analyze.js';
import { IdParamsSchema, PaginationQuerySchema } from '../../shared/schemas/common.js';
import { standardErrors } from '../../shared/schemas/problem.js';
import {
  type LearnedCandidate,
  type LearnedExtractor,
  LearnedExtractorListSchema,
  type SiteCrawlOptions,
  SiteCreateSchema,
  SiteListSchema,
  SiteSchema,
  type SiteUpdate,
  SiteUpdateSchema,
} from '../../shared/schemas/sites.js';
import type { TemplateRecord } from '../../shared/store/learned-extractors.js';
import type { SiteDoc, SiteFields } from '../../shared/store/sites.js';
import type { ApiDeps } from '../deps.js';
import { usableSchema } from '../job-requests.js';
import { found, notFound } from '../problem.js';

const siteResource = ({ _id, tenant_id, ...doc }: SiteDoc) => ({
  ...doc,
  learn_extractors: doc.learn_extractors ?? true,
  actions: doc.actions ?? null,
  organization_id: tenant_id,
});

type CrawlOptionsInput = NonNullable<SiteUpdate['crawl_options']>;
type AnalysisInput = SiteUpdate['analysis_result'];

/** Stored options are complete: an option the caller left out is null. */
const storedCrawlOptions = (o: CrawlOptionsInput): SiteCrawlOptions => ({
  follow_pattern: o.follow_pattern ?? null,
  follow_selector: o.follow_selector ?? null,
  max_depth: o.max_depth ?? null,
  max_pages: o.max_pages ?? null,
});

/** An analyze response is saved without its job_id and sample_data. */
function storedAnalysis(analysis: NonNullable<AnalysisInput> | null): AnalysisResult | null {
  if (!analysis) return null;
  const { job_id, sample_data, ...result } = analysis;
  return result;
}

const checkDefaultSchema = async (deps: ApiDeps, tenantId: string, id: string | null | undefined) => {
  if (id) await usableSchema(deps, tenantId, id, 'body.default_schema_id');
};

export const siteRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    const owned = async (tenantId: string, id: string) =>
      found(await deps.sites.get(tenantId, id), `site ${id}`);

    app.get(
      '/sites',
      {
        schema: {
          summary: 'List your stored sites, newest first',
          tags: ['sites'],
          querystring: PaginationQuerySchema,
          response: { 200: SiteListSchema, ...standardErrors },
        },
      },
      async (request) => {
        const { sites, total } = await deps.sites.list(request.tenant._id, request.query);
        return { sites: sites.map(siteResource), total };
      },
    );

    app.post(
      '/sites',
      {
        schema: {
          summary: 'Store a site',
          description:
            'url is required; domain is its host. default_schema_id must name a stored schema you can use ' +
            '(yours or a public one), else 422. The body of an analyze response can be saved as ' +
            'analysis_result unchanged (its job_id and sample_data are dropped). 201 with the site.',
          tags: ['sites'],
          body: SiteCreateSchema,
          response: { 201: SiteSchema, ...standardErrors },
        },
      },
      async (request, reply) => {
        const { url, name, crawl_options, analysis_result, ...rest } = request.body;
        await checkDefaultSchema(deps, request.tenant._id, rest.default_schema_id);
        const domain = new URL(url).hostname.toLowerCase();
        const doc = await deps.sites.create(request.tenant._id, request.apiKeyId, {
          ...rest,
          name: name ?? domain,
          url,
          domain,
          crawl_options: storedCrawlOptions(crawl_options),
          analysis_result: storedAnalysis(analysis_result),
        });
        return reply.code(201).send(siteResource(doc));
      },
    );

    app.get(
      '/sites/:id',
      {
        schema: {
          summary: 'Get a stored site',
          tags: ['sites'],
          params: IdParamsSchema,
          response: { 200: SiteSchema, ...standardErrors },
        },
      },
      async (request) => siteResource(await owned(request.tenant._id, request.params.id)),
    );

    app.put(
      '/sites/:id',
      {
        schema: {
          summary: 'Update a stored site',
          description:
            'Every field is optional and a missing one keeps its value; url is ignored (a site keeps its URL ' +
            'and domain). crawl_options replaces the stored options as a whole; null clears ' +
            'default_schema_id or analysis_result. 200 with the site.',
          tags: ['sites'],
          params: IdParamsSchema,
          body: SiteUpdateSchema,
          response: { 200: SiteSchema, ...standardErrors },
        },
      },
      async (request) => {
        const { url, crawl_options, analysis_result, ...rest } = request.body;
        await owned(request.tenant._id, request.params.id);
        await checkDefaultSchema(deps, request.tenant._id, rest.default_schema_id);
        const fields: SiteFields = { ...rest };
        if (crawl_options) fields.crawl_options = storedCrawlOptions(crawl_options);
        if (analysis_result !== undefined) fields.analysis_result = storedAnalysis(analysis_result);
        const updated = await deps.sites.update(request.tenant._id, request.params.id, fields);
        if (!updated) throw notFound(`site ${request.params.id}`);
        return siteResource(updated);
      },
    );

    app.delete(
      '/sites/:id',
      {
        schema: {
          summary: 'Delete a stored site',
          tags: ['sites'],
          params: IdParamsSchema,
          response: { 204: z.null().meta({ description: 'Deleted' }), ...standardErrors },
        },
      },
      async (request, reply) => {
        if (!(await deps.sites.delete(request.tenant._id, request.params.id))) {
          throw notFound(`site ${request.params.id}`);
        }
        await deps.learned.deleteForScope(request.tenant._id, `site:${request.params.id}`);
        await deps.sessions.delete(request.tenant._id, request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/sites/:id/extractors',
      {
        schema: {
          summary: "List a site's learned extractors, oldest first",
          description:
            "The page templates the site's crawls learned (see learn_extractors on POST /crawl): per template, its " +
            'URL shape and structure fingerprint, the schema it answers (by hash), its status (learning, verified, ' +
            'unlearnable) with the reason, the selector read for each field, the pages it was learned from and ' +
            'verified on, when it was verified and last checked, and how many pages it answered. Paged by limit ' +
            'and offset; total counts them all.',
          tags: ['sites'],
          params: IdParamsSchema,
          querystring: PaginationQuerySchema,
          response: { 200: LearnedExtractorListSchema, ...standardErrors },
        },
      },
      async (request) => {
        const site = await owned(request.tenant._id, request.params.id);
        const { records, total } = await deps.learned.listForScope(
          request.tenant._id,
          `site:${site.id}`,
          request.query,
        );
        const answered = await Promise.all(records.map((r) => deps.learned.pagesAnswered(r)));
        return { extractors: records.map((r, i) => extractorResource(r, answered[i] ?? 0)), total };
      },
    );

    app.delete(
      '/sites/:id/extractors',
      {
        schema: {
          summary: "Forget a site's learned extractors",
          description: 'Its next crawls learn again from the model. 204.',
          tags: ['sites'],
          params: IdParamsSchema,
          response: { 204: z.null().meta({ description: 'Forgotten' }), ...standardErrors },
        },
      },
      async (request, reply) => {
        const site = await owned(request.tenant._id, request.params.id);
        await deps.learned.deleteForScope(request.tenant._id, `site:${site.id}`);
        return reply.code(204).send(null);
      },
    );
  };

/** One candidate as the API shows it; a list of objects shows its properties' candidates inside. */
function candidateView(c: Candidate, nested = false): LearnedCandidate {
  const t = c.transform;
  return {
    selector: c.selector,
    ...(c.attr ? { attribute: c.attr } : {}),
    read: c.absent ? 'absent' : t.kind,
    ...(t.kind === 'affix' ? { prefix: t.prefix, suffix: t.suffix } : {}),
    ...(t.kind === 'number' ? { number_index: t.index } : {}),
    ...(t.kind === 'lookup' ? { lookup: t.map } : {}),
    ...(t.kind === 'items' && !nested
      ? {
          properties: Object.fromEntries(
            Object.entries(t.props).map(([name, list]) => [name, list.map((p) => candidateView(p, true))]),
          ),
        }
      : {}),
    list: c.list === true,
  };
}

/** A template record as the API shows it: no bookkeeping, one line per field. */
function extractorResource(r: TemplateRecord, pagesAnswered: number): LearnedExtractor {
  return {
    id: r._id.slice(r._id.indexOf(':') + 1),
    url_shape: r.url_shape,
    dom_signature: createHash('sha256').update(r.sketch).digest('hex').slice(0, 24),
    schema_hash: r.schema_hash,
    status: r.status,
    reason: r.reason,
    fields: Object.fromEntries(
      Object.entries(r.fields).map(([name, candidates]) => [
        name,
        (candidates ?? []).map((c) => candidateView(c)),
      ]),
    ),
    learned_from: r.learned_from,
    verified_on: r.verified_on,
    verified_at: r.verified_at,
    last_checked_at: r.last_checked_at,
    checks_passed: r.checks_passed,
    invalidations: r.invalidations,
    pages_answered: pagesAnswered,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}
