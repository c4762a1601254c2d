// Replays workflow histories against the current workflow code and reports determinism errors.
//   npm run --silent replay -- <job-id|workflow-id>...            download from Temporal, then replay
//   npm run --silent replay -- --save test/replay/histories <id>  also store the history (for CI)
//   npm run --silent replay -- --dir test/replay/histories        replay stored histories
// Exit code 1 when any history does not replay.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { loadConfig } from '../shared/config.js';
import { JOB_TYPES } from '../shared/temporal-names.js';
import { type History, loadHistoryDir, replayHistories } from '../worker/replay.js';
import { installRuntime } from '../worker/runtime.js';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { save: { type: 'string' }, dir: { type: 'string' } },
});
const config = loadConfig();
installRuntime('error');

/** A job id (job_…) maps to its workflow id `<type>-<job id>`; the type is found by asking Temporal. */
async function fetchHistory(client: Client, id: string): Promise<{ workflowId: string; history: History }> {
  const candidates = id.startsWith('job_') ? JOB_TYPES.map((t) => `${t}-${id}`) : [id];
  for (const workflowId of candidates) {
    try {
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      return { workflowId, history };
    } catch {
      // try the next job type
    }
  }
  throw new Error(`no workflow found for ${id} (tried ${candidates.join(', ')})`);
}

const histories: { workflowId: string; history: History }[] = [];
if (values.dir) histories.push(...loadHistoryDir(values.dir));
if (positionals.length > 0) {
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  for (const id of positionals) {
    const fetched = await fetchHistory(client, id);
    histories.push(fetched);
    if (values.save) {
      mkdirSync(values.save, { recursive: true });
      const file = join(values.save, `${fetched.workflowId}.json`);
      writeFileSync(
        file,
        `${JSON.stringify(JSON.parse(historyToJSON(fetched.history as never)), null, 1)}\n`,
      );
      process.stderr.write(`saved ${file}\n`);
    }
  }
  await connection.close();
}
if (histories.length === 0) {
  process.stderr.write(
    'usage: npm run --silent replay -- [--save <dir>] [--dir <dir>] <job-id|workflow-id>...\n',
  );
  process.exit(2);
}
const outcomes = await replayHistories(histories);
for (const o of outcomes)
  process.stdout.write(`${o.ok ? 'ok  ' : 'FAIL'} ${o.workflowId}${o.error ? `\n     ${o.error}` : ''}\n`);
process.exit(outcomes.every((o) => o.ok) ? 0 : 1);
