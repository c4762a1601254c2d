// A monitor's Temporal Schedule: created, updated, paused, resumed, triggered and deleted with the monitor. Its
// action starts monitorRunWorkflow with two ids (tenant, monitor), never the request or a secret.
import {
  ScheduleNotFoundError,
  type ScheduleOptions,
  ScheduleOverlapPolicy,
  type ScheduleSpec,
} from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { parseInterval } from '../shared/schemas/monitors.js';
import type { MonitorDoc } from '../shared/store/monitors.js';
import {
  MONITOR_RUN_WORKFLOW,
  SEARCH_ATTRIBUTE_KEYS,
  scheduleIdForMonitor,
} from '../shared/temporal-names.js';
import type { ApiDeps } from './deps.js';
import { ProblemError } from './problem.js';

const DEADLINE_MS = 10_000;

export const scheduleIdOf = (doc: Pick<MonitorDoc, 'tenant_id' | 'id'>) =>
  scheduleIdForMonitor(doc.tenant_id, doc.id);

function specOf(schedule: MonitorDoc['schedule']): ScheduleSpec {
  const every = schedule.every ? parseInterval(schedule.every) : null;
  return every
    ? { intervals: [{ every }], timezone: schedule.timezone }
    : { cronExpressions: [schedule.cron ?? ''], timezone: schedule.timezone };
}

/**
 * A scheduled run waits for the one before (BUFFER_ONE): runs are compared one after another, and a slow crawl delays
 * the next run rather than piling runs up. A run missed while the service was down is taken if at most a
 * minute late.
 */
function options(deps: ApiDeps, doc: MonitorDoc): ScheduleOptions {
  return {
    scheduleId: scheduleIdOf(doc),
    spec: specOf(doc.schedule),
    action: {
      type: 'startWorkflow',
      workflowType: MONITOR_RUN_WORKFLOW,
      workflowId: `monitor-run-${doc.tenant_id}-${doc.id}`,
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [{ tenantId: doc.tenant_id, monitorId: doc.id }],
      typedSearchAttributes: new TypedSearchAttributes([
        { key: SEARCH_ATTRIBUTE_KEYS.tenant, value: doc.tenant_id },
      ]),
    },
    policies: { overlap: ScheduleOverlapPolicy.BUFFER_ONE, catchupWindow: '1m' },
    state: { paused: doc.paused, note: doc.paused ? 'paused via the API' : 'created via the API' },
    memo: { tenant: doc.tenant_id, monitor: doc.id, name: doc.name },
  };
}

/** Temporal out of reach is a 503; a schedule Temporal refuses (e.g. a cron it cannot read) a 422. */
function scheduleProblem(err: unknown): ProblemError {
  if (err instanceof ProblemError) return err;
  const message = (err as Error).message ?? String(err);
  const code =
    (err as { code?: number; cause?: { code?: number } }).code ??
    (err as { cause?: { code?: number } }).cause?.code;
  if (code === 3) {
    return new ProblemError({
      slug: 'validation-error',
      detail: `The schedule cannot be used: ${message}`,
      errors: [{ location: 'body.schedule', message }],
    });
  }
  return new ProblemError({
    slug: 'service-unavailable',
    detail: `The monitor's schedule could not be changed (${message}); try again.`,
  });
}

async function call<T>(deps: ApiDeps, fn: () => Promise<T>): Promise<T> {
  try {
    return await deps.temporal.withDeadline(Date.now() + DEADLINE_MS, fn);
  } catch (err) {
    throw scheduleProblem(err);
  }
}

const handle = (deps: ApiDeps, doc: MonitorDoc) => deps.temporal.schedule.getHandle(scheduleIdOf(doc));

export const createSchedule = (deps: ApiDeps, doc: MonitorDoc) =>
  call(deps, () => deps.temporal.schedule.create(options(deps, doc)));

/** Replaces the schedule's spec and action (the paused state is set apart, by pause and resume). */
export const updateSchedule = (deps: ApiDeps, doc: MonitorDoc) =>
  call(deps, () =>
    handle(deps, doc).update((previous) => {
      const next = options(deps, doc);
      return { ...previous, spec: next.spec, action: next.action, policies: next.policies };
    }),
  );

export async function setPaused(deps: ApiDeps, doc: MonitorDoc, paused: boolean): Promise<void> {
  await call(deps, () =>
    paused ? handle(deps, doc).pause('paused via the API') : handle(deps, doc).unpause('resumed via the API'),
  );
}

/**
 * Runs now, even while another run goes on: a buffered trigger would start only when the scheduler next
 * notices the running one has ended, which can take minutes. Each run is compared with the baseline as it
 * stands when the run ends, so runs ending one after another still chain.
 */
export const triggerSchedule = (deps: ApiDeps, doc: MonitorDoc) =>
  call(deps, () => handle(deps, doc).trigger(ScheduleOverlapPolicy.ALLOW_ALL));

/** Deletes the schedule; one already gone is fine. */
export async function deleteSchedule(deps: ApiDeps, doc: MonitorDoc): Promise<void> {
  try {
    await deps.temporal.withDeadline(Date.now() + DEADLINE_MS, () => handle(deps, doc).delete());
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw scheduleProblem(err);
  }
}

/** When the schedule runs next; null when paused, gone or Temporal does not answer quickly. */
export async function nextRunAt(deps: ApiDeps, doc: MonitorDoc): Promise<string | null> {
  try {
    const description = await deps.temporal.withDeadline(Date.now() + 2_000, () =>
      handle(deps, doc).describe(),
    );
    if (description.state.paused) return null;
    return description.info.nextActionTimes[0]?.toISOString() ?? null;
  } catch {
    return null;
  }
}
