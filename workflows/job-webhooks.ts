// Emits a job's webhook events: one child workflow per (event, destination), started and abandoned, so the
// job never waits on a receiver. Nothing happens (and no command is issued) for a job without webhooks.
import { isCancellation, ParentClosePolicy, startChild, uuid4 } from '@temporalio/workflow';
import type { WebhookPlan } from '../shared/schemas/job-spec.js';
import type { WebhookEvent } from '../shared/webhooks.js';
import { webhookDeliveryWorkflow } from './webhook-delivery.js';

/** job.progress is sent at most this often. */
const PROGRESS_INTERVAL_MS = 1000;

export class JobWebhooks {
  private lastProgressAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly jobId: string,
    private readonly tenantId: string,
    private readonly plan: WebhookPlan | undefined,
  ) {}

  /** Starts the deliveries of one event; `n` tells apart repeated events (progress) in the workflow ids. */
  async emit(event: WebhookEvent, n = 0): Promise<void> {
    const plan = this.plan;
    if (!plan) return;
    const timestamp = new Date().toISOString();
    await Promise.all(
      plan.destinations.map(async ({ events }, destination) => {
        if (!events.includes(event)) return;
        try {
          await startChild(webhookDeliveryWorkflow, {
            workflowId: `webhook-${this.jobId}-${event}-${n}-${destination}`,
            parentClosePolicy: ParentClosePolicy.ABANDON,
            args: [
              {
                deliveryId: `dlv_${uuid4().replaceAll('-', '')}`,
                jobId: this.jobId,
                tenantId: this.tenantId,
                event,
                destination,
                timestamp,
                retryDelaysMs: plan.retryDelaysMs,
              },
            ],
          });
        } catch (err) {
          if (isCancellation(err)) throw err;
          // Already started (same workflow id): that delivery exists; a webhook never fails the job.
        }
      }),
    );
  }

  /** Whether any destination takes job.progress (callers skip progress() otherwise). */
  get wantsProgress(): boolean {
    return this.plan?.destinations.some((d) => d.events.includes('job.progress')) ?? false;
  }

  /** job.progress, coalesced to at most one per second. */
  async progress(n: number): Promise<void> {
    if (!this.wantsProgress) return;
    if (Date.now() - this.lastProgressAt < PROGRESS_INTERVAL_MS) return;
    this.lastProgressAt = Date.now();
    await this.emit('job.progress', n);
  }
}
