// A workflow's round trips through Temporal, read from its history: how many workflow tasks completed and
// which activities were scheduled, in order (the shape tests of one-activity jobs).
import type { TestService } from './service.js';

export async function historyShape(svc: TestService, workflowId: string) {
  const history = await svc.deps.temporal.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const workflowTasks = events.filter((e) => e.workflowTaskCompletedEventAttributes).length;
  const activities = events
    .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)
    .filter((name): name is string => Boolean(name));
  return { history, events, workflowTasks, activities };
}
