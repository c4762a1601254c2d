// The Temporal client's interceptors (API, tests): starting a job's workflow puts the job on the request's log
// lines and, with tracing, opens the StartWorkflow span whose context travels to the worker in the headers.
import type { Next, WorkflowClientInterceptor, WorkflowStartInput } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client/index.js';
import { annotateCurrentRequest } from './api-logging.js';
import { jobContextOf, jobIdOf } from './job-context.js';
import type { Tracing } from './tracing.js';

const jobLogInterceptor: WorkflowClientInterceptor = {
  startWithDetails(input: WorkflowStartInput, next: Next<WorkflowClientInterceptor, 'startWithDetails'>) {
    const { workflowId, args } = input.options;
    annotateCurrentRequest({ jobId: jobIdOf(workflowId), workflowId, ...jobContextOf(args[0]) });
    return next(input);
  },
};

export function clientInterceptors(tracing: Tracing | null | undefined): {
  workflow: WorkflowClientInterceptor[];
} {
  return {
    workflow: tracing
      ? [new OpenTelemetryWorkflowClientInterceptor(), jobLogInterceptor]
      : [jobLogInterceptor],
  };
}
