// Replays recorded workflow histories against the current workflow code: a change that would break
// running workflows (non-determinism) shows up here instead of in production.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import type { temporal } from '@temporalio/proto';
import { type ReplayResult, Worker } from '@temporalio/worker';
import { workflowInterceptorModules } from './interceptors.js';
import { WORKFLOWS_PATH } from './workflow-bundle.js';

export type History = temporal.api.history.v1.IHistory;

export interface ReplayOutcome {
  workflowId: string;
  ok: boolean;
  error?: string;
}

export function loadHistoryFile(path: string): History {
  return historyFromJSON(JSON.parse(readFileSync(path, 'utf8')));
}

/** Every `*.json` history in a directory, named by file. */
export function loadHistoryDir(dir: string): { workflowId: string; history: History }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ workflowId: f.replace(/\.json$/, ''), history: loadHistoryFile(join(dir, f)) }));
}

export async function replayHistories(
  histories: { workflowId: string; history: History }[],
  workflowsPath = WORKFLOWS_PATH,
): Promise<ReplayOutcome[]> {
  const outcomes: ReplayOutcome[] = [];
  const results: AsyncIterable<ReplayResult> = Worker.runReplayHistories(
    {
      workflowsPath,
      replayName: 'extract-service-replay',
      interceptors: { workflowModules: workflowInterceptorModules(null) },
    },
    histories,
  );
  for await (const result of results) {
    outcomes.push({
      workflowId: result.workflowId,
      ok: !result.error,
      error: result.error ? `${result.error.name}: ${result.error.message}` : undefined,
    });
  }
  return outcomes;
}
