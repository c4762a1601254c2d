// A workflow test's Temporal: the run's shared dev server (or a private stack when the file runs alone) seen
// through the SDK's test environment, a task queue of the file's own, and the worker's cached workflow bundle.
// A fresh dev server per file (TestWorkflowEnvironment.createLocal) and a webpack bundle built in the test's
// process (Worker.create with workflowsPath) each cost seconds of CPU per file; neither is what is tested.
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { ensureSearchAttributes } from '../../temporal-config/search-attributes.js';
import { workflowInterceptorModules } from '../../worker/interceptors.js';
import { installRuntime } from '../../worker/runtime.js';
import { WORKFLOWS_PATH, workflowBundlePath } from '../../worker/workflow-bundle.js';
import { type InfraHandle, useInfra } from './service.js';

export interface WorkflowEnv {
  env: TestWorkflowEnvironment;
  infra: InfraHandle;
  /** This file's task queue: workflows and the fake activities' worker meet on it alone. */
  taskQueue: string;
  /** For Worker.create: the bundle the worker runs (its job-header interceptor included). */
  workflowBundle: { codePath: string };
  close(): Promise<void>;
}

export async function startWorkflowEnv(name: string): Promise<WorkflowEnv> {
  installRuntime('silent');
  const infra = await useInfra();
  // The job workflows set their search attributes; the shared server may not have them yet in this run.
  const client = await Connection.connect({ address: infra.temporalAddress });
  await ensureSearchAttributes(client, 'default').finally(() => client.close());
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address: infra.temporalAddress });
  const codePath = await workflowBundlePath(WORKFLOWS_PATH, workflowInterceptorModules(null));
  return {
    env,
    infra,
    taskQueue: `${name}-${randomUUID().slice(0, 8)}`,
    workflowBundle: { codePath },
    async close() {
      await env.teardown();
      await infra.stop();
    },
  };
}
