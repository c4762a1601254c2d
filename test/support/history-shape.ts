// A workflow's round trips through Temporal, read from its history: how many workflow tasks completed and
// which activities were scheduled (and which local activities recorded their results), in order (the shape tests of one-activity jobs), and a crawl's page
// activities with the pages each ran (crawlPage: one; crawlPages: several at once).
import { defaultPayloadConverter } from '@temporalio/common';
import type { TestService } from './service.js';

/** The marker a local activity's result is recorded in, and the part of its details that names it. */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';
interface MarkerData {
  activity_type: string;
}

export async function historyShape(svc: TestService, workflowId: string) {
  const history = await svc.deps.temporal.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const workflowTasks = events.filter((e) => e.workflowTaskCompletedEventAttributes).length;
  const activities = events
    .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)
    .filter((name): name is string => Boolean(name));
  const localActivities = events
    .map((e) => e.markerRecordedEventAttributes)
    .filter((m) => m?.markerName === LOCAL_ACTIVITY_MARKER)
    .map(
      (m) =>
        (defaultPayloadConverter.fromPayload(m?.details?.data?.payloads?.[0] ?? {}) as MarkerData)
          .activity_type,
    );
  return { history, events, workflowTasks, activities, localActivities };
}

/** A crawl-page activity of a history: its type, the URLs of its pages, and the worker that started it. */
export interface PageActivity {
  activity: 'crawlPage' | 'crawlPages';
  urls: string[];
  startedBy?: string;
}

/** The crawl's page activities, in the order they were scheduled. */
export async function pageActivities(svc: TestService, workflowId: string): Promise<PageActivity[]> {
  const { events } = await historyShape(svc, workflowId);
  const byId = new Map<string, PageActivity>();
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    const name = s?.activityType?.name;
    if (s && (name === 'crawlPage' || name === 'crawlPages')) {
      const input = defaultPayloadConverter.fromPayload(s.input?.payloads?.[0] ?? {}) as {
        url?: string;
        pages?: { url: string }[];
      };
      const urls = input.pages ? input.pages.map((p) => p.url) : [input.url ?? ''];
      byId.set(String(e.eventId), { activity: name, urls });
    }
    const started = e.activityTaskStartedEventAttributes;
    const run = started && byId.get(String(started.scheduledEventId));
    if (run) run.startedBy = started.identity ?? '?';
  }
  return [...byId.values()];
}
