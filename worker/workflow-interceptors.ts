// Bundled into the workflow sandbox (interceptors.workflowModules): every workflow log line names its job and
// tenant, activities receive them in a header (their inputs do not all carry the tenant), and child workflows
// (webhook deliveries) get the tenant in their memo, as the API gives it to job workflows.
// Deterministic: headers and memo are not part of the replay check, and nothing here issues a command.
import {
  type ActivityInput,
  defaultPayloadConverter,
  type LocalActivityInput,
  type Next,
  type StartChildWorkflowExecutionInput,
  type WorkflowInterceptors,
  type WorkflowOutboundCallsInterceptor,
  workflowInfo,
} from '@temporalio/workflow';
import { JOB_HEADER, type JobContext, jobContextOf, jobIdOf } from '../shared/telemetry/job-context.js';

export const interceptors = (): WorkflowInterceptors => {
  const job: JobContext = { jobId: jobIdOf(workflowInfo().workflowId) };
  /** The memo is decoded after the interceptors are made: read it when first needed. */
  const current = (): JobContext => {
    const tenant = job.tenantId === undefined ? workflowInfo().memo?.tenant : undefined;
    if (typeof tenant === 'string') job.tenantId = tenant;
    return job;
  };
  const withJobHeader = <T extends ActivityInput | LocalActivityInput>(input: T): T => ({
    ...input,
    headers: { ...input.headers, [JOB_HEADER]: defaultPayloadConverter.toPayload(current()) },
  });
  const outbound: WorkflowOutboundCallsInterceptor = {
    getLogAttributes: (attributes, next) => next({ ...attributes, ...current() }),
    scheduleActivity: (input, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) =>
      next(withJobHeader(input)),
    scheduleLocalActivity: (input, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>) =>
      next(withJobHeader(input)),
    startChildWorkflowExecution: (
      input: StartChildWorkflowExecutionInput,
      next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
    ) =>
      next(
        current().tenantId === undefined || input.options.memo?.tenant !== undefined
          ? input
          : {
              ...input,
              options: { ...input.options, memo: { ...input.options.memo, tenant: job.tenantId } },
            },
      ),
  };
  return {
    inbound: [
      {
        execute(input, next) {
          Object.assign(job, jobContextOf(input.args[0]));
          return next(input);
        },
      },
    ],
    outbound: [outbound],
  };
};
