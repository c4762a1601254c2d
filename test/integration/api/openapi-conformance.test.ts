// The OpenAPI document tells the truth: schemathesis (property-based, from PyPI, in the venv scripts/setup.mjs
// makes) generates requests for every operation from the live document and runs every check against the real
// stack — no 5xx, no undocumented status, header or body, valid requests accepted and invalid ones refused,
// 405 for undeclared methods, deleted resources gone. Its hooks (test/conformance/hooks.py) point page URLs
// at a loopback fixture, webhook URLs at a loopback receiver and ids at resources made here, so no request
// leaves the machine and a valid request is not refused for naming something that does not exist.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PYTHON_VENV } from '../../../scripts/generate-python-client.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

let svc: TestService;
let site: FixtureSite;
let receiver: Server;
/** The schemathesis run, ended by `after` if the test's timeout came first. */
let fuzzer: ChildProcess | undefined;
let base: string;

const CONFORMANCE_DIR = join(process.cwd(), 'test', 'conformance');

async function call(method: string, path: string, body: unknown) {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { ...svc.auth(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { id: string };
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

function runSchemathesis(env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      join(PYTHON_VENV, 'bin', 'schemathesis'),
      [
        '--config-file',
        join(CONFORMANCE_DIR, 'schemathesis.toml'),
        'run',
        `${base}/api/v1/openapi.json`,
        '--url',
        base,
        '-H',
        `Authorization: Bearer ${svc.apiKey}`,
        '--seed',
        '20261125',
        '--no-color',
      ],
      {
        cwd: CONFORMANCE_DIR,
        env: { ...process.env, ...env, SCHEMATHESIS_HOOKS: 'hooks', PYTHONPATH: CONFORMANCE_DIR },
      },
    );
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.once('error', reject);
    fuzzer = child;
    child.once('exit', (code) => resolve({ code: code ?? 1, output }));
  });
}

describe('OpenAPI conformance (schemathesis, every check)', () => {
  before(async () => {
    // The fuzzer sends wrong keys on purpose from one address: neither limit may stop it.
    svc = await startTestService({
      env: { RATE_LIMIT_PER_MINUTE: '1000000', AUTH_FAILURE_LIMIT: '1000000', EXTRACT_WAIT_SECONDS: '5' },
    });
    site = await startFixtureSite();
    site.route('/product', (_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(
        html(
          'Widget',
          '<main><h1>Widget</h1><p class="price">Price: 12.50</p><p>A widget with enough words to read.</p>' +
            '<a href="/product">again</a> <a class="next" href="/product">next</a></main>',
        ),
      );
    });
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    await svc.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
  });

  after(async () => {
    fuzzer?.kill();
    // Jobs the run started may still be going: end them, so no activity outlives the worker and reopens
    // its database connection (the driver reconnects on use), which would keep this process alive.
    const running = svc?.deps.temporal.workflow.list({
      query: `TaskQueue="${svc.config.TEMPORAL_TASK_QUEUE}" AND ExecutionStatus="Running"`,
    });
    for await (const workflow of running ?? []) {
      await svc.deps.temporal.workflow
        .getHandle(workflow.workflowId, workflow.runId)
        .terminate('conformance run over')
        .catch(() => undefined);
    }
    await svc?.close();
    await site?.close();
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
    // The open database connections once seen here were a second worker that was started and never stopped;
    // should anything keep the process alive again, say what is left, then end the process with the tests'
    // own exit code (the timer itself holds nothing open).
    setTimeout(() => {
      process.stderr.write(`[conformance] still open: ${process.getActiveResourcesInfo().join(', ')}\n`);
      process.exit(process.exitCode ?? 0);
    }, 10_000).unref();
  });

  // Minutes on a 2-core machine, and past 10 when other processes keep both cores busy: the timeout only catches
  // a hang.
  test('a schemathesis run over every operation reports no failure', { timeout: 1_800_000 }, async () => {
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const schema = await call('POST', '/schemas', {
      name: 'conformance',
      schema_yaml: 'title: string\nprice: number\n',
    });
    const webhook = await call('POST', '/webhooks', {
      name: 'conformance',
      url: receiverUrl,
      events: ['job.completed'],
      is_active: true,
    });
    const stored = await call('POST', '/sites', {
      name: 'conformance',
      url: `${site.url}/product`,
      default_schema_id: schema.id,
    });
    const { code, output } = await runSchemathesis({
      CONFORMANCE_PAGE_URL: `${site.url}/product`,
      CONFORMANCE_RECEIVER_URL: receiverUrl,
      CONFORMANCE_SCHEMA_ID: schema.id,
      CONFORMANCE_WEBHOOK_ID: webhook.id,
      CONFORMANCE_SITE_ID: stored.id,
    });
    const summary = output.slice(output.lastIndexOf('SUMMARY'));
    assert.match(output, /Tested: \d+/, output.slice(-3000));
    assert.doesNotMatch(summary, /❌/, output.slice(-12000));
    assert.equal(code, 0, output.slice(-12000));
  });
});
