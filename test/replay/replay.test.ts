// CI replays the recorded workflow histories against the current workflow code, so a change that would
// break running workflows fails the build. Record new ones with:
//   npm run --silent replay -- --save test/replay/histories <job-id>
// or re-record the fixed set (extracts, crawls with continue-as-new, webhook delivery with retries):
//   npm run --silent record-histories
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadHistoryDir, replayHistories } from '../../worker/replay.js';
import { installRuntime } from '../../worker/runtime.js';

const dir = fileURLToPath(new URL('./histories', import.meta.url));
const histories = loadHistoryDir(dir);
installRuntime('silent');

test('every recorded history replays against the current workflow code', { timeout: 120_000 }, async () => {
  assert.ok(histories.length >= 6, 'histories are recorded');
  assert.ok(
    histories.some((h) => h.workflowId.startsWith('crawl-continue-as-new')),
    'a crawl that continued as new',
  );
  const activitiesOf = (h: (typeof histories)[number]) =>
    h.history.events?.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name) ?? [];
  assert.ok(
    histories.some((h) => activitiesOf(h).includes('crawlPages')),
    'a crawl that ran pages several at once',
  );
  const retried = histories.find((h) => h.workflowId.startsWith('webhook-delivery'));
  assert.ok(retried, 'a webhook delivery');
  const timers = retried.history.events?.filter((e) => e.timerStartedEventAttributes) ?? [];
  assert.equal(timers.length, 2, 'the delivery was retried twice');
  const outcomes = await replayHistories(histories);
  assert.equal(outcomes.length, histories.length);
  for (const o of outcomes) assert.ok(o.ok, `${o.workflowId}: ${o.error}`);
});

test('a non-deterministic change to a workflow is caught by replay', { timeout: 120_000 }, async () => {
  const changed = fileURLToPath(new URL('./fixtures/changed-workflows.ts', import.meta.url));
  const outcomes = await replayHistories(histories, changed);
  assert.ok(outcomes.length > 0);
  for (const o of outcomes) {
    assert.equal(o.ok, false, `${o.workflowId} should not replay`);
    assert.match(o.error ?? '', /Determinism|nondetermin/i);
  }
});
