// The two workflows of bench:temporal-floor: what Temporal alone costs a job, with no work of ours in it.
import { proxyActivities } from '@temporalio/workflow';

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
