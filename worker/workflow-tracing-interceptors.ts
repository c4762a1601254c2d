// Bundled into the workflow sandbox when tracing is on, in place of the OpenTelemetry package's module: its
// spans for the workflow run, child workflows, signals and queries, but no StartActivity span per scheduled
// activity, local or not. Those spans only mark the scheduling instant (Temporal's history has it too), and
// made in the sandbox each costs ~1.5 ms of worker CPU (every promise there records a stack trace): a tenth
// of a crawl page's cost. The activity still joins the trace: its RunActivity span is a child of RunWorkflow.
// Deterministic: headers are not part of the replay check, and the command is issued as before.

import { headersWithContext } from '@temporalio/interceptors-opentelemetry/lib/instrumentation.js';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import type {
  ActivityInput,
  LocalActivityInput,
  Next,
  WorkflowInterceptors,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

class ActivityContextOutboundInterceptor extends OpenTelemetryOutboundInterceptor {
  override scheduleActivity(
    input: ActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>,
  ) {
    return next({ ...input, headers: headersWithContext(input.headers) });
  }

  override scheduleLocalActivity(
    input: LocalActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
  ) {
    return next({ ...input, headers: headersWithContext(input.headers) });
  }
}

export const interceptors = (): WorkflowInterceptors => ({
  inbound: [new OpenTelemetryInboundInterceptor()],
  outbound: [new ActivityContextOutboundInterceptor()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
