// Monitors of the caller's tenant: a stored extract, crawl or site request run on a Temporal Schedule, each
// run an ordinary job whose results are compared with the run before (changes, monitor.changed webhooks).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdParamsSchema, PaginationQuerySchema } from '../../shared/schemas/common.js';
import {
  MAX_CHANGES_PER_RUN,
  MAX_MONITORS_PER_TENANT,
  MonitorChangeListSchema,
  MonitorListSchema,
  MonitorRequestSchema,
  MonitorSchema,
} from '../../shared/schemas/monitors.js';
import { ProblemSchema, standardErrors } from '../../shared/schemas/problem.js';
import {
  type ChangeDoc,
  type MonitorDoc,
  MonitorStore,
  monitorSecretsId,
} from '../../shared/store/monitors.js';
import type { ApiDeps } from '../deps.js';
import { jobSpecChanged, prepareMonitor } from '../monitor-request.js';
import {
  createSchedule,
  deleteSchedule,
  nextRunAt,
  scheduleIdOf,
  setPaused,
  triggerSchedule,
  updateSchedule,
} from '../monitor-schedule.js';
import { found, notFound, ProblemError } from '../problem.js';

const monitorResource = (doc: MonitorDoc, next?: string | null) => ({
  id: doc.id,
  name: doc.name,
  kind: doc.kind === 'extract' ? ('extract' as const) : ('crawl' as const),
  url: doc.url,
  site_id: doc.site_id,
  schedule: doc.schedule,
  paused: doc.paused,
  key_field: doc.key_field,
  request: doc.request,
  schedule_id: scheduleIdOf(doc),
  ...(next === undefined ? {} : { next_run_at: next }),
  run_count: doc.run_count,
  change_count: doc.change_count,
  last_run: doc.last_run,
  baseline_job_id: doc.baseline_job_id,
  created_at: doc.created_at,
  updated_at: doc.updated_at,
});

const changeResource = ({ _id, tenant_id, ...change }: ChangeDoc) => change;

const MonitorActionResponses = { 200: MonitorSchema, 503: ProblemSchema, ...standardErrors };

export const monitorRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    const owned = async (tenantId: string, id: string) =>
      found(await deps.monitors.get(tenantId, id), `monitor ${id}`);

    const forgetSecrets = async (tenantId: string, id: string) => {
      const holder = monitorSecretsId(tenantId, id);
      await deps.llm.deleteJobKey(holder);
      await deps.webhooks.putJobDestinations(holder, tenantId, []);
    };

    app.post(
      '/monitors',
      {
        schema: {
          summary: 'Create a monitor: a request run on a schedule whose results are compared run by run',
          description:
            'Stores an extract, crawl or stored-site request (each checked as its own route checks it: 422 for ' +
            'an unusable schema, site or webhook) and creates a Temporal Schedule that runs it (cron or every, ' +
            'at least a minute apart; a scheduled run waits for the one before). Each run is an ordinary job (GET /jobs, ' +
            'with monitor_id) whose results are compared with the last completed run: records matched by page ' +
            'URL, or by key_field; what was added, removed or changed (field by field) is kept at ' +
            '/monitors/{id}/changes and sent as a monitor.changed webhook event, only when something changed. ' +
            `The first run is the baseline. At most ${MAX_MONITORS_PER_TENANT} monitors per tenant (409). ` +
            '503 when the workflow service is out of reach (nothing is kept). 201 with the monitor.',
          tags: ['monitors'],
          body: MonitorRequestSchema,
          response: { 201: MonitorSchema, 409: ProblemSchema, 503: ProblemSchema, ...standardErrors },
        },
      },
      async (request, reply) => {
        const tenantId = request.tenant._id;
        if ((await deps.monitors.count(tenantId)) >= MAX_MONITORS_PER_TENANT) {
          throw new ProblemError({
            slug: 'conflict',
            detail: `you have ${MAX_MONITORS_PER_TENANT} monitors, the most allowed: delete one first`,
          });
        }
        const id = MonitorStore.newId();
        const prepared = await prepareMonitor(deps, tenantId, id, request.body);
        await prepared.sealSecrets();
        const doc = await deps.monitors.create(tenantId, id, prepared.fields);
        try {
          await createSchedule(deps, doc);
        } catch (err) {
          await deps.monitors.delete(tenantId, id);
          throw err;
        }
        return reply.code(201).send(monitorResource(doc));
      },
    );

    app.get(
      '/monitors',
      {
        schema: {
          summary: 'List your monitors, newest first',
          tags: ['monitors'],
          querystring: PaginationQuerySchema,
          response: { 200: MonitorListSchema, ...standardErrors },
        },
      },
      async (request) => {
        const { monitors, total } = await deps.monitors.list(request.tenant._id, request.query);
        return { monitors: monitors.map((m) => monitorResource(m)), total };
      },
    );

    app.get(
      '/monitors/:id',
      {
        schema: {
          summary: 'Get a monitor, with its last run and next scheduled run',
          tags: ['monitors'],
          params: IdParamsSchema,
          response: { 200: MonitorSchema, ...standardErrors },
        },
      },
      async (request) => {
        const doc = await owned(request.tenant._id, request.params.id);
        return monitorResource(doc, await nextRunAt(deps, doc));
      },
    );

    app.put(
      '/monitors/:id',
      {
        schema: {
          summary: 'Replace a monitor',
          description:
            'The whole monitor is replaced (as POST /monitors takes it) and its schedule updated; paused sets ' +
            'the paused state too. A changed request (another URL, schema, options) makes the next completed ' +
            'run a new baseline; only a new schedule, name or key_field keeps it. 200 with the monitor.',
          tags: ['monitors'],
          params: IdParamsSchema,
          body: MonitorRequestSchema,
          response: MonitorActionResponses,
        },
      },
      async (request) => {
        const tenantId = request.tenant._id;
        const before = await owned(tenantId, request.params.id);
        const prepared = await prepareMonitor(deps, tenantId, before.id, request.body);
        // The secrets stored before go: the new request's are sealed in their place.
        await forgetSecrets(tenantId, before.id);
        await prepared.sealSecrets();
        const requestChanged =
          jobSpecChanged(before, prepared.fields) || before.key_field !== prepared.fields.key_field;
        const doc = await deps.monitors.update(tenantId, before.id, prepared.fields, requestChanged);
        if (!doc) throw notFound(`monitor ${before.id}`);
        await updateSchedule(deps, doc);
        if (doc.paused !== before.paused) await setPaused(deps, doc, doc.paused);
        return monitorResource(doc, await nextRunAt(deps, doc));
      },
    );

    app.delete(
      '/monitors/:id',
      {
        schema: {
          summary: 'Delete a monitor and its schedule',
          description:
            'Deletes the Temporal Schedule (a run in progress finishes; its job stays, as every job does), ' +
            'the monitor and its changes. 204.',
          tags: ['monitors'],
          params: IdParamsSchema,
          response: { 204: z.null().meta({ description: 'Deleted' }), 503: ProblemSchema, ...standardErrors },
        },
      },
      async (request, reply) => {
        const tenantId = request.tenant._id;
        const doc = await owned(tenantId, request.params.id);
        await deleteSchedule(deps, doc);
        await deps.monitors.delete(tenantId, doc.id);
        await forgetSecrets(tenantId, doc.id);
        return reply.code(204).send(null);
      },
    );

    const setState =
      (paused: boolean) => async (request: { tenant: { _id: string }; params: { id: string } }) => {
        const doc = await owned(request.tenant._id, request.params.id);
        await setPaused(deps, doc, paused);
        const updated = await deps.monitors.update(doc.tenant_id, doc.id, { paused }, false);
        if (!updated) throw notFound(`monitor ${doc.id}`);
        return monitorResource(updated, await nextRunAt(deps, updated));
      };

    app.post(
      '/monitors/:id/pause',
      {
        schema: {
          summary: 'Pause a monitor',
          description:
            'Pauses its Temporal Schedule: no run starts until it is resumed (a run in progress finishes). ' +
            'Pausing a paused monitor is fine. 200 with the monitor.',
          tags: ['monitors'],
          params: IdParamsSchema,
          response: MonitorActionResponses,
        },
      },
      setState(true),
    );

    app.post(
      '/monitors/:id/resume',
      {
        schema: {
          summary: 'Resume a paused monitor',
          description:
            'Unpauses its Temporal Schedule; runs missed while paused are not made up. 200 with the monitor.',
          tags: ['monitors'],
          params: IdParamsSchema,
          response: MonitorActionResponses,
        },
      },
      setState(false),
    );

    app.post(
      '/monitors/:id/trigger',
      {
        schema: {
          summary: 'Run a monitor now',
          description:
            'Starts a run at once through its schedule, even while another run goes on (each run is compared ' +
            'with the last completed run when it ends). A paused monitor does ' +
            'not run: 409 (resume it first). 202 with the monitor; the run shows in last_run and its job in ' +
            'GET /jobs.',
          tags: ['monitors'],
          params: IdParamsSchema,
          response: { 202: MonitorSchema, 409: ProblemSchema, 503: ProblemSchema, ...standardErrors },
        },
      },
      async (request, reply) => {
        const doc = await owned(request.tenant._id, request.params.id);
        if (doc.paused) {
          throw new ProblemError({ slug: 'conflict', detail: 'the monitor is paused: resume it to run it' });
        }
        await triggerSchedule(deps, doc);
        return reply.code(202).send(monitorResource(doc));
      },
    );

    app.get(
      '/monitors/:id/changes',
      {
        schema: {
          summary: "A monitor's recorded changes, newest first",
          description:
            'One entry per run that found a change: the records added, removed and changed (field by field, ' +
            `old and new value), at most ${MAX_CHANGES_PER_RUN} records per run (omitted counts the rest). The ` +
            'last 1,000 changes are kept.',
          tags: ['monitors'],
          params: IdParamsSchema,
          querystring: PaginationQuerySchema,
          response: { 200: MonitorChangeListSchema, ...standardErrors },
        },
      },
      async (request) => {
        const doc = await owned(request.tenant._id, request.params.id);
        const { changes, total } = await deps.monitors.listChanges(doc, request.query);
        return { changes: changes.map(changeResource), total };
      },
    );
  };
