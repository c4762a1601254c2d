// The two workflows of bench:temporal-floor: what Temporal alone costs a job, with no work of ours in it.
import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import { SEARCH_ATTRIBUTE_KEYS } from '../../shared/temporal-names.js';

const { nothing } = proxyActivities<{ nothing(): Promise<number> }>({
  startToCloseTimeout: '10s',
  allowEagerDispatch: true,
});

/** Started and returned at once: one workflow task. */
export async function startAndReturn(n: number): Promise<number> {
  return n;
}

/** One activity that does nothing, dispatched eagerly as an extract's page is: two workflow tasks. */
export async function oneActivity(n: number): Promise<number> {
  return (await nothing()) + n;
}

/**
 * oneActivity as a job's workflow carries it: started with the job's search attributes and memo (floor.ts),
 * its status attribute set to running in the first task and to completed in the second, as
 * workflows/page-job.ts does. The difference from oneActivity is what those attributes cost Temporal.
 */
export async function oneActivityAsJob(n: number): Promise<number> {
  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.status, value: 'running' }]);
  const done = await nothing();
  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE_KEYS.status, value: 'completed' }]);
  return done + n;
}
