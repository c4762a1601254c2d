// Monitors against the real stack: a Temporal Schedule per monitor, runs started with /trigger (never waiting
// for the schedule), each run an ordinary job compared with the run before, monitor.changed only on a change.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ScheduleNotFoundError, WorkflowNotFoundError } from '@temporalio/client';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';
import { type Receiver, startReceiver } from '../../webhooks/receiver.js';

let svc: TestService;
let site: FixtureSite;
let rx: Receiver;
let price = '19.99';
let listing = [
  ['W-1', '5'],
  ['W-2', '6'],
];
const SECRET = 'monitor-test-secret-0123456789';

before(async () => {
  svc = await startTestService({
    // The fake model reads the price off the page it is sent.
    llm: {
      respond: ({ userText, properties }) =>
        properties.includes('items')
          ? {
              items: [...userText.matchAll(/SKU (W-\d+) costs (\d+)/g)].map((m) => ({
                sku: m[1],
                price: Number(m[2]),
              })),
            }
          : { name: 'Widget', price: Number(/Price: ([\d.]+)/.exec(userText)?.[1] ?? 0) },
    },
  });
  site = await startFixtureSite();
  site.route('/widget', (_req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        html(
          'Widget',
          `<main><h1>Widget</h1><p>A fine widget for every desk.</p><p>Price: ${price}</p></main>`,
        ),
      ),
  );
  site.route('/list', (_req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        html(
          'Widgets',
          `<main><h1>All widgets</h1><ul>${listing.map(([sku, p]) => `<li>SKU ${sku} costs ${p}</li>`).join('')}</ul></main>`,
        ),
      ),
  );
  rx = await startReceiver();
});
after(async () => {
  await rx?.close();
  await site?.close();
  await svc?.close();
});

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = (method: Method, url: string, payload?: object, key?: string) =>
  svc.app.inject({ method, url: `/api/v1${url}`, headers: svc.auth(key), payload });

const monitorBody = (over: object = {}) => ({
  name: 'Widget price',
  schedule: { every: '1h' },
  extract: {
    url: `${site.url}/widget`,
    schema: { name: 'string', price: 'number' },
    structured_data: false,
    webhook: { url: `${rx.url}/changes`, secret: SECRET, events: ['monitor.changed'] },
  },
  ...over,
});

/**
 * Waits until the monitor has started `runs` runs and the last one is compared; polled in the store, as
 * polling the API would spend the tenant's request-rate limit.
 */
async function runEnded(id: string, runs: number) {
  const deadline = Date.now() + 150_000;
  for (;;) {
    const doc = await svc.deps.monitors.get(svc.tenantId, id);
    if (doc && doc.run_count >= runs && doc.last_run && doc.last_run.outcome !== 'running') {
      return (await call('GET', `/monitors/${id}`)).json();
    }
    if (Date.now() > deadline) throw new Error(`monitor ${id}: ${JSON.stringify(doc?.last_run)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every payload of a workflow's history as text (payload data are bytes). */
async function historyText(workflowId: string): Promise<string> {
  const history = await svc.deps.temporal.workflow.getHandle(workflowId).fetchHistory();
  const parts: string[] = [];
  const walk = (v: unknown) => {
    if (v instanceof Uint8Array) parts.push(Buffer.from(v).toString('utf8'));
    else if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(history);
  return parts.join('\n');
}

const changedEvents = () =>
  rx.on('/changes').filter((r) => r.headers['x-service-event'] === 'monitor.changed');

describe('monitors', () => {
  test('runs on trigger as ordinary jobs; one monitor.changed with the old and new price, none when unchanged', async () => {
    const created = await call('POST', '/monitors', monitorBody());
    assert.equal(created.statusCode, 201, created.body);
    const monitor = created.json();
    assert.equal(monitor.kind, 'extract');
    assert.equal(monitor.request.extract.webhook.secret, undefined, 'the secret is never shown');
    assert.equal(monitor.request.extract.webhook.has_secret, true);

    // The schedule exists in Temporal, its action carries only ids.
    const schedule = await svc.deps.temporal.schedule.getHandle(monitor.schedule_id).describe();
    assert.equal(schedule.state.paused, false);
    assert.equal(schedule.action.type, 'startWorkflow');
    assert.equal(schedule.action.workflowType, 'monitorRunWorkflow');
    assert.deepEqual(schedule.action.args, [{ tenantId: svc.tenantId, monitorId: monitor.id }]);
    assert.ok(!JSON.stringify(schedule).includes(SECRET));

    assert.equal((await call('POST', `/monitors/${monitor.id}/trigger`)).statusCode, 202);
    const first = await runEnded(monitor.id, 1);
    assert.equal(first.last_run.outcome, 'baseline');
    const job1 = (await call('GET', `/jobs/${first.last_run.job_id}`)).json();
    assert.equal(job1.status, 'completed');
    assert.equal(job1.monitor_id, monitor.id);
    // The run started the job's workflow as its child; neither history holds the webhook secret.
    const child = await svc.deps.temporal.workflow.getHandle(job1.workflow_id).describe();
    const runId = child.parentExecution?.workflowId ?? '';
    assert.ok(runId.startsWith(`monitor-run-${svc.tenantId}-${monitor.id}`), runId);
    for (const id of [runId, job1.workflow_id as string]) {
      const text = await historyText(id);
      assert.ok(text.includes(monitor.id) || text.includes(job1.id), 'payloads were read');
      assert.ok(!text.includes(SECRET), `no secret in ${id}`);
    }

    price = '24.99';
    assert.equal((await call('POST', `/monitors/${monitor.id}/trigger`)).statusCode, 202);
    const second = await runEnded(monitor.id, 2);
    assert.equal(second.last_run.outcome, 'changed', JSON.stringify(second.last_run));
    const [delivery] = await rx.waitFor('/changes', 1, 90_000);
    assert.ok(delivery);
    assert.equal(delivery.headers['x-service-event'], 'monitor.changed');
    const expected = createHmac('sha256', SECRET).update(delivery.body).digest('hex');
    assert.equal(delivery.headers['x-service-signature'], expected, 'signed like every delivery');
    const event = JSON.parse(delivery.body);
    assert.equal(event.event, 'monitor.changed');
    assert.equal(event.job_id, second.last_run.job_id);
    assert.equal(event.data.monitor_id, monitor.id);
    assert.equal(event.data.previous_job_id, job1.id);
    assert.deepEqual(event.data.counts, { added: 0, removed: 0, changed: 1 });
    assert.deepEqual(event.data.changed[0].fields, [{ field: 'price', old: 19.99, new: 24.99 }]);

    const changes = (await call('GET', `/monitors/${monitor.id}/changes`)).json();
    assert.equal(changes.total, 1);
    assert.equal(changes.changes[0].id, second.last_run.change_id);
    assert.deepEqual(changes.changes[0].changed[0].fields, [{ field: 'price', old: 19.99, new: 24.99 }]);

    assert.equal((await call('POST', `/monitors/${monitor.id}/trigger`)).statusCode, 202);
    const third = await runEnded(monitor.id, 3);
    assert.equal(third.last_run.outcome, 'unchanged');
    assert.equal(third.baseline_job_id, third.last_run.job_id);
    // The run has ended (its result says so) without starting a monitor.changed delivery workflow.
    const job3 = (await call('GET', `/jobs/${third.last_run.job_id}`)).json();
    const run3 = (await svc.deps.temporal.workflow.getHandle(job3.workflow_id).describe()).parentExecution;
    const ended = await svc.deps.temporal.workflow.getHandle(run3?.workflowId ?? '').result();
    assert.equal(ended.outcome, 'unchanged');
    await assert.rejects(
      svc.deps.temporal.workflow.getHandle(`webhook-${job3.id}-monitor.changed-0-0`).describe(),
      WorkflowNotFoundError,
    );
    const deliveries = (await call('GET', `/jobs/${third.last_run.job_id}/webhooks`)).json();
    assert.deepEqual(deliveries.deliveries, [], 'no delivery for an unchanged run');
    assert.equal(changedEvents().length, 1, 'exactly one monitor.changed in all');
    assert.equal((await call('GET', `/monitors/${monitor.id}/changes`)).json().total, 1);

    const jobs = (await call('GET', '/jobs?limit=10')).json().jobs;
    assert.equal(jobs.filter((j: { monitor_id: string | null }) => j.monitor_id === monitor.id).length, 3);
  });

  test('a crawl monitor with key_field: listing records matched by key, added, removed and changed', async () => {
    const created = await call('POST', '/monitors', {
      schedule: { cron: '0 6 * * *' },
      key_field: 'sku',
      crawl: {
        url: `${site.url}/list`,
        schema: { items: [{ sku: 'string', price: 'number' }] },
        structured_data: false,
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const monitor = created.json();
    assert.equal(monitor.kind, 'crawl');
    await call('POST', `/monitors/${monitor.id}/trigger`);
    assert.equal((await runEnded(monitor.id, 1)).last_run.outcome, 'baseline');
    listing = [
      ['W-2', '7'],
      ['W-3', '8'],
    ];
    await call('POST', `/monitors/${monitor.id}/trigger`);
    const second = await runEnded(monitor.id, 2);
    assert.equal(second.last_run.outcome, 'changed', JSON.stringify(second.last_run));
    const [change] = (await call('GET', `/monitors/${monitor.id}/changes`)).json().changes;
    assert.deepEqual(change.counts, { added: 1, removed: 1, changed: 1 });
    assert.equal(change.added[0].key, 'W-3');
    assert.equal(change.removed[0].key, 'W-1');
    assert.deepEqual(change.changed[0], {
      key: 'W-2',
      url: `${site.url}/list`,
      fields: [{ field: 'price', old: 6, new: 7 }],
    });
    const job = (await call('GET', `/jobs/${second.last_run.job_id}`)).json();
    assert.equal(job.type, 'crawl');
    assert.equal(job.monitor_id, monitor.id);
  });

  test('a paused monitor does not run: its schedule is paused and trigger answers 409', async () => {
    const monitor = (await call('POST', '/monitors', monitorBody({ name: 'paused one' }))).json();
    const paused = await call('POST', `/monitors/${monitor.id}/pause`);
    assert.equal(paused.statusCode, 200, paused.body);
    assert.equal(paused.json().paused, true);
    assert.equal(paused.json().next_run_at, null);
    const handle = svc.deps.temporal.schedule.getHandle(monitor.schedule_id);
    assert.equal((await handle.describe()).state.paused, true);
    const trigger = await call('POST', `/monitors/${monitor.id}/trigger`);
    assert.equal(trigger.statusCode, 409, trigger.body);
    const after = (await call('GET', `/monitors/${monitor.id}`)).json();
    assert.equal(after.run_count, 0);
    assert.equal((await handle.describe()).info.numActionsTaken, 0);

    const resumed = await call('POST', `/monitors/${monitor.id}/resume`);
    assert.equal(resumed.json().paused, false);
    assert.equal((await handle.describe()).state.paused, false);
    assert.ok(resumed.json().next_run_at, 'a resumed schedule has a next run');
  });

  test('CRUD, validation, 404 for another tenant, and the schedule deleted with the monitor', async () => {
    const bad = await call('POST', '/monitors', monitorBody({ schedule: { every: '30s' } }));
    assert.equal(bad.statusCode, 422, bad.body);
    assert.ok(bad.json().errors.some((e: { location: string }) => e.location.startsWith('body.schedule')));
    const both = await call('POST', '/monitors', {
      ...monitorBody(),
      crawl: { url: `${site.url}/widget`, schema: { price: 'number' } },
    });
    assert.equal(both.statusCode, 422, both.body);
    const badZone = await call(
      'POST',
      '/monitors',
      monitorBody({ schedule: { cron: '0 * * * *', timezone: 'Mars/Olympus' } }),
    );
    assert.equal(badZone.statusCode, 422, badZone.body);

    const created = await call(
      'POST',
      '/monitors',
      monitorBody({
        name: 'crud',
        schedule: { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' },
        key_field: 'sku',
      }),
    );
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id;
    const handle = svc.deps.temporal.schedule.getHandle(created.json().schedule_id);
    assert.equal((await handle.describe()).spec.timezone, 'Europe/Berlin');

    const listed = (await call('GET', '/monitors')).json();
    assert.ok(listed.monitors.some((m: { id: string }) => m.id === id));

    const put = await call(
      'PUT',
      `/monitors/${id}`,
      monitorBody({ name: 'renamed', schedule: { every: '2h' } }),
    );
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(put.json().name, 'renamed');
    assert.equal(put.json().key_field, null);
    const spec = (await handle.describe()).spec;
    assert.equal(spec.intervals?.[0]?.every, 2 * 3_600_000);

    // A stored site: its URL and settings make the crawl; a site of another tenant (or none) is a 422.
    const stored = await call('POST', '/sites', { url: `${site.url}/list`, name: 'Widget list' });
    assert.equal(stored.statusCode, 201, stored.body);
    const siteBody = {
      schedule: { every: '1d' },
      site_id: stored.json().id,
      site_crawl: { schema: { items: [{ sku: 'string' }] } },
    };
    const ofSite = await call('POST', '/monitors', siteBody);
    assert.equal(ofSite.statusCode, 201, ofSite.body);
    assert.equal(ofSite.json().kind, 'crawl');
    assert.equal(ofSite.json().site_id, stored.json().id);
    assert.equal(ofSite.json().url, `${site.url}/list`);
    assert.equal(ofSite.json().name, 'Widget list');
    assert.equal((await call('DELETE', `/monitors/${ofSite.json().id}`)).statusCode, 204);

    const other = await svc.newTenant('tenant-b');
    const foreignSite = await call('POST', '/monitors', siteBody, other.apiKey);
    assert.equal(foreignSite.statusCode, 422, foreignSite.body);
    assert.equal(foreignSite.json().errors[0].location, 'body.site_id');
    for (const [method, path] of [
      ['GET', `/monitors/${id}`],
      ['PUT', `/monitors/${id}`],
      ['DELETE', `/monitors/${id}`],
      ['POST', `/monitors/${id}/pause`],
      ['POST', `/monitors/${id}/resume`],
      ['POST', `/monitors/${id}/trigger`],
      ['GET', `/monitors/${id}/changes`],
    ] as const) {
      const res = await call(method, path, method === 'PUT' ? monitorBody() : undefined, other.apiKey);
      assert.equal(res.statusCode, 404, `${method} ${path}: ${res.body}`);
    }
    assert.deepEqual((await call('GET', '/monitors', undefined, other.apiKey)).json().monitors, []);
    assert.equal((await handle.describe()).state.paused, false, "another tenant's pause changed nothing");

    assert.equal((await call('DELETE', `/monitors/${id}`)).statusCode, 204);
    await assert.rejects(handle.describe(), ScheduleNotFoundError);
    assert.equal((await call('GET', `/monitors/${id}`)).statusCode, 404);
    assert.equal((await call('DELETE', `/monitors/${id}`)).statusCode, 404);
  });
});
