// The README's `npm start`, as a newcomer runs it: the whole stack from scripts/start.ts, an API key from
// the first start, extractions (HTML, a PDF, a page rendered in Chromium: what the worker's bundle runs in its
// threads and children), the Temporal UI, a clean stop, and jobs that survive a restart.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { freePort, isPortFree } from '../../../scripts/lib/ports.js';
import { type FakeLlmServer, startFakeLlmServer } from '../../support/fake-llm-server.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';

let llm: FakeLlmServer;
let site: FixtureSite;
let dataDir: string;
let ports: { api: number; ferret: number; temporal: number; ui: number };

before(async () => {
  llm = await startFakeLlmServer();
  site = await startFixtureSite();
  site.route(
    '/book',
    html(
      'A Book',
      '<h1>The Long Road</h1><p>Author: Ada Lovelace</p><p>Pages: 312</p><p>' +
        'A story. '.repeat(20) +
        '</p>',
    ),
  );
  const pdf = readFileSync(new URL('../../fixtures/documents/price-list.pdf', import.meta.url));
  site.route('/price-list.pdf', (_req, res) =>
    res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf),
  );
  dataDir = mkdtempSync(join(tmpdir(), 'extract-e2e-'));
  ports = {
    api: await freePort(),
    ferret: await freePort(),
    temporal: await freePort([10, 20]),
    ui: await freePort(),
  };
});
after(async () => {
  await site?.close();
  await llm?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Started {
  proc: ChildProcess;
  stdout: string;
  exited: Promise<number | null>;
}

async function npmStart(): Promise<Started> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(ports.api),
      FERRETDB_PORT: String(ports.ferret),
      TEMPORAL_PORT: String(ports.temporal),
      TEMPORAL_UI_PORT: String(ports.ui),
      TEMPORAL_TASK_QUEUE: 'e2e',
      MONGODB_URI: '',
      TEMPORAL_ADDRESS: '',
      SERVICE_BOOTSTRAP_API_KEY: '',
      ALLOW_PRIVATE_ADDRESSES: 'true',
      OPENAI_API_KEY: 'sk-e2e',
      OPENAI_BASE_URL: llm.openaiBaseUrl,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started: Started = {
    proc,
    stdout: '',
    exited: new Promise((resolve) => proc.once('exit', (code) => resolve(code))),
  };
  proc.stderr?.resume();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "running" banner; got:\n${started.stdout}`)),
      180_000,
    );
    proc.stdout?.on('data', (chunk: Buffer) => {
      started.stdout += chunk.toString();
      if (started.stdout.includes('Ctrl-C stops everything')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void started.exited.then((code) => reject(new Error(`start exited early (${code}):\n${started.stdout}`)));
  });
  return started;
}

async function stop(started: Started) {
  started.proc.kill('SIGTERM');
  const code = await started.exited;
  assert.equal(code, 0, 'the start command exits cleanly on SIGTERM');
  for (const port of Object.values(ports)) assert.ok(await isPortFree(port), `port ${port} is released`);
}

test('npm start runs the whole service; a stop releases everything; jobs survive a restart', {
  timeout: 600_000,
}, async () => {
  const first = await npmStart();
  const api = `http://127.0.0.1:${ports.api}`;
  assert.match(first.stdout, new RegExp(`${api}/api/v1`));
  assert.match(first.stdout, new RegExp(`${api}/docs`));
  assert.match(first.stdout, new RegExp(`Temporal UI\\s+http://127.0.0.1:${ports.ui}`));
  const key = /sk_[A-Za-z0-9_-]+/.exec(first.stdout)?.[0];
  assert.ok(key, 'the first start prints an API key');
  const link = new RegExp(`${api}/#sign-in=[\\w-]+`).exec(first.stdout)?.[0];
  assert.ok(link, 'the first start prints a console sign-in link');
  const page = await fetch(`${api}/`);
  assert.equal(page.status, 200, 'the console (built by the set-up) is served at /');
  assert.match(await page.text(), /console\/assets\/app\.js/);

  assert.equal((await fetch(`${api}/readyz`)).status, 200);
  assert.equal((await fetch(`http://127.0.0.1:${ports.ui}/`)).status, 200, 'the Temporal Web UI answers');

  const res = await fetch(`${api}/api/v1/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      url: `${site.url}/book`,
      schema: { title: 'string', author: 'string', pages: 'integer' },
    }),
  });
  const body = (await res.json()) as { job_id: string; data: unknown };
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.deepEqual(body.data, { title: 'The Long Road', author: 'Ada Lovelace', pages: 312 });
  // A PDF (read in the document reader's child process) and a page rendered in Chromium.
  for (const [path, fetchMode] of [
    ['/price-list.pdf', 'static'],
    ['/book', 'dynamic'],
  ]) {
    const other: Response = await fetch(`${api}/api/v1/extract`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site.url}${path}`, schema: { title: 'string' }, fetch_mode: fetchMode }),
    });
    assert.equal(other.status, 200, `${path}: ${await other.clone().text()}`);
    assert.ok(((await other.json()) as { data: { title?: string } }).data.title, `${path} answered a title`);
  }
  // Every series of the dashboard is scraped by default: the API's /metrics counts the job created, the
  // worker's (named in the banner) the job completed and the Temporal SDK's own series.
  assert.match(
    await (await fetch(`${api}/metrics`)).text(),
    /extract_service_jobs_created_total\{job_type="extract"\} 3/,
  );
  const workerMetrics = /(http:\/\/\S+\/metrics) \(worker\)/.exec(first.stdout)?.[1];
  assert.ok(workerMetrics, `the banner names the worker's metrics:\n${first.stdout}`);
  const scraped = await (await fetch(workerMetrics)).text();
  assert.match(scraped, /extract_service_jobs_completed_total\{job_type="extract"\} 3/);
  assert.match(scraped, /temporal_worker_task_slots_available/);
  await stop(first);

  const second = await npmStart();
  assert.doesNotMatch(second.stdout, /sk_/, 'a key is printed on the first start only');
  const job = await fetch(`${api}/api/v1/jobs/${body.job_id}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(job.status, 200);
  assert.equal(((await job.json()) as { status: string }).status, 'completed');
  await stop(second);
});
