// The CLI (clients/cli, the package's `extract-service` bin) as a person or a script runs it: a child
// process against the real stack, checked by exit code, stdout and stderr; and a crawl under tmux, checked
// by what the screen shows. Further cases run the same command lines in this process (`run` with captured
// streams), which saves a process start each.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { run as runCli } from '../../../clients/cli/src/program.js';
import { startTestService, type TestService } from '../../support/service.js';
import { type ShopSite, startShopSite } from '../../support/shop-site.js';

const BIN = join(process.cwd(), 'clients/cli/bin/extract-service.js');
const SCHEMA = '{"title":"string","price":"number"}';
const run = promisify(execFile);

let svc: TestService;
let shop: ShopSite;
let base: string;
let home: string;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

type Options = { env?: Record<string, string | undefined>; input?: string };

/** The environment names the service and key unless `env` says otherwise. */
const envOf = (opts: Options): Record<string, string | undefined> => ({
  ...process.env,
  HOME: home,
  XDG_CONFIG_HOME: join(home, 'config'),
  EXTRACT_SERVICE_URL: base,
  EXTRACT_SERVICE_API_KEY: svc.apiKey,
  EXTRACT_SERVICE_KEY: undefined,
  ...opts.env,
});

/** A command line in this process, its streams captured. */
async function inProcess(args: string[], opts: Options = {}): Promise<Ran> {
  const sink = () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        stream.text += String(chunk);
        done();
      },
    }) as Writable & { text: string };
    stream.text = '';
    return stream;
  };
  const stdout = sink();
  const stderr = sink();
  const stdin = Readable.from([opts.input ?? '']);
  const code = await runCli(args, { env: envOf(opts), stdin, stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** The CLI as a child process. */
function cli(args: string[], opts: Options = {}) {
  const env = envOf(opts);
  return new Promise<Ran>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

const crawlArgs = (...more: string[]) => [
  'crawl',
  `${shop.url}/`,
  '--schema',
  SCHEMA,
  '--follow',
  'a.product',
  '--next',
  'a.next',
  '--max-pages',
  '12',
  ...more,
];

before(async () => {
  svc = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
  shop = await startShopSite({ productDelayMs: 400 });
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
  home = mkdtempSync(join(tmpdir(), 'cli-test-'));
});
after(async () => {
  await shop?.close();
  await svc?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('extract-service CLI', () => {
  test('npx finds the bin; extract prints the data (inline JSON or a schema file), --json the whole answer', async () => {
    const file = join(home, 'schema.json');
    writeFileSync(file, SCHEMA);
    const [npx, plain, json, prompt] = await Promise.all([
      run('npx', ['--no-install', 'extract-service', '--version'], { cwd: process.cwd() }),
      cli(['extract', `${shop.url}/product/2`, '--schema', SCHEMA]),
      cli(['extract', `${shop.url}/product/3`, '--schema', file, '--json', '--fetch-mode', 'static']),
      inProcess(['extract', `${shop.url}/product/5`, '--schema', 'the product name and its price', '--json']),
    ]);
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.equal(JSON.parse(prompt.stdout).input_format, 'prompt');
    assert.equal(npx.stdout.trim(), '0.1.0');
    assert.equal(plain.code, 0, plain.stderr);
    assert.deepEqual(Object.keys(JSON.parse(plain.stdout)).sort(), ['price', 'title']);
    assert.match(plain.stderr, /job_\S+ · openai\/\S+ · \w+ · \d+ tokens/);
    assert.equal(json.code, 0, json.stderr);
    const answer = JSON.parse(json.stdout);
    assert.match(answer.job_id, /\S/);
    assert.equal(answer.metadata.fetch_mode, 'static');
    assert.deepEqual(Object.keys(answer.data).sort(), ['price', 'title']);
  });

  test('exit codes: bad flag 2, invalid request 2, bad key 3, no key 3, unreachable 4, unknown job 5, failed page 1', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const [badFlag, noSchema, invalid, badKey, noKey, unreachable, unknown, failed] = await Promise.all([
      cli(['jobs', '--bogus']),
      inProcess(['extract', `${shop.url}/product/1`]),
      inProcess(['crawl', `${shop.url}/`, '--schema', SCHEMA, '--pattern', '(a)\\1', '--json']),
      cli(['jobs', '--key', 'not-a-key']),
      inProcess(['jobs'], { env: { EXTRACT_SERVICE_API_KEY: undefined } }),
      inProcess(['jobs', '--url', `http://127.0.0.1:${closed}`]),
      inProcess(['job', 'job_does_not_exist']),
      cli(['extract', `${shop.url}/product/7`, '--schema', SCHEMA]),
    ]);
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.stderr, /unknown option '--bogus'/);
    assert.equal(noSchema.code, 2);
    assert.match(noSchema.stderr, /--schema/);
    assert.equal(invalid.code, 2, invalid.stderr);
    const problem = JSON.parse(invalid.stderr).error;
    assert.equal(problem.exit_code, 2);
    assert.equal(problem.problem.status, 422);
    assert.equal(invalid.stdout, '');
    assert.equal(badKey.code, 3);
    assert.match(badKey.stderr, /401/);
    assert.doesNotMatch(badKey.stderr, /not-a-key/);
    assert.equal(noKey.code, 3);
    assert.match(noKey.stderr, /no API key/);
    assert.equal(unreachable.code, 4);
    assert.match(unreachable.stderr, /cannot reach the service/);
    assert.equal(unknown.code, 5);
    assert.match(unknown.stderr, /404/);
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, /job_\S+|http_status|410/);
    assert.equal(failed.stdout, '');
  });

  test('crawl --wait --json, then jobs, job, results --format jsonl (stdout: data only), replay and retry', async () => {
    const crawl = await cli(crawlArgs('--concurrency', '5', '--wait', '--json'));
    assert.equal(crawl.code, 0, crawl.stderr);
    const job = JSON.parse(crawl.stdout);
    assert.equal(job.status, 'completed');
    assert.ok(job.page_count >= 8, `pages: ${job.page_count}`);
    assert.equal(job.failed_count, 1); // /product/7 answers 410
    assert.equal(crawl.stderr, '', 'no progress lines on a pipe with --json');

    const [jobs, crawls, extracts, table, one, jsonl, replay, retry] = await Promise.all([
      cli(['jobs', '--json']),
      inProcess(['jobs', '--type', 'crawl', '--status', 'completed', '--json']),
      inProcess(['jobs', '--type', 'extract', '--json']),
      inProcess(['jobs', '--limit', '5']),
      inProcess(['job', job.id]),
      cli(['results', job.id, '--format', 'jsonl']),
      inProcess(['replay', job.id, '--json']),
      inProcess(['retry', job.id, '--wait']), // stderr is not a terminal: plain progress lines
    ]);
    assert.equal(jobs.code, 0, jobs.stderr);
    assert.ok(JSON.parse(jobs.stdout).jobs.some((j: { id: string }) => j.id === job.id));
    assert.equal(crawls.code, 0, crawls.stderr);
    assert.ok(JSON.parse(crawls.stdout).jobs.some((j: { id: string }) => j.id === job.id));
    const extractJobs = JSON.parse(extracts.stdout).jobs as { id: string; type: string }[];
    assert.ok(extractJobs.every((j) => j.type === 'extract') && !extractJobs.some((j) => j.id === job.id));
    assert.match(table.stdout, /^ID +TYPE +STATUS +PAGES +FAILED +COST +CREATED +URL$/m);
    assert.match(table.stdout, new RegExp(`^${job.id} +crawl +completed +${job.page_count} +1 +\\$`, 'm'));
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, new RegExp(`^id +${job.id}$`, 'm'));
    assert.match(one.stdout, /^status +completed$/m);
    assert.equal(jsonl.code, 0, jsonl.stderr);
    const lines = jsonl.stdout.trimEnd().split('\n');
    assert.equal(lines.length, job.page_count + job.failed_count + 1); // + the robots-skipped page
    for (const line of lines) assert.match(JSON.parse(line).url, /^http:\/\/127\.0\.0\.1/);
    assert.equal(replay.code, 0, replay.stderr);
    const events = replay.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(events[0].event, 'status');
    assert.equal(events.at(-1).event, 'complete');
    assert.equal(events.filter((e) => e.event === 'result').length, lines.length);

    // The retry: a new job of the one failed page, which fails again (410).
    assert.match(retry.stdout, new RegExp(`^retry of +${job.id}$`, 'm'));
    assert.match(retry.stdout, /^pages +0 done, 1 failed, 0 queued$/m);
    const status = /^status +(\w+)$/m.exec(retry.stdout)?.[1];
    assert.equal(retry.code, status === 'completed' ? 0 : 1, retry.stderr);
    assert.match(
      retry.stderr,
      /^progress: \d+ done, \d+ queued, \d+ failed, [\d,]+ tokens, \$[\d.]+, [\d.]+ pages\/s, [\d.]+s$/m,
    );
    assert.match(retry.stderr, /^failed: http:\/\/127\.0\.0\.1:\d+\/product\/7 \(http_status: /m);
    assert.match(retry.stderr, new RegExp(`^${status}: 0 pages, 1 failed, `, 'm'));
  });

  test('cancel stops a running crawl; cancelling it again is refused (5)', async () => {
    const started = await cli(crawlArgs('--concurrency', '1'));
    assert.equal(started.code, 0, started.stderr);
    const id = started.stdout.trim();
    assert.match(id, /^job_\S+$/);
    const cancel = await cli(['cancel', id]);
    assert.equal(cancel.code, 0, cancel.stderr);
    assert.equal(cancel.stdout.trim(), `${id} cancelled`);
    const twice = await inProcess(['cancel', id, '--json']);
    assert.equal(twice.code, 5);
    assert.equal(JSON.parse(twice.stderr).error.problem.status, 409);
  });

  test('login checks the key, writes the config file 0600; later commands use it; keys create/revoke', async () => {
    const env = { EXTRACT_SERVICE_URL: undefined, EXTRACT_SERVICE_API_KEY: undefined };
    const path = join(home, 'config/extract-service/config.json');
    const elsewhere = join(home, 'refused');
    const [refused, login] = await Promise.all([
      inProcess(['login', '--url', base], {
        env: { ...env, XDG_CONFIG_HOME: elsewhere },
        input: 'wrong-key\n',
      }),
      cli(['login', '--url', base], { env, input: `${svc.apiKey}\n` }),
    ]);
    assert.equal(refused.code, 3);
    assert.throws(
      () => statSync(join(elsewhere, 'extract-service/config.json')),
      'a refused key is not saved',
    );
    assert.equal(login.code, 0, login.stderr);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), { url: base, key: svc.apiKey });
    assert.ok(!`${login.stdout}${login.stderr}`.includes(svc.apiKey), 'the key is never printed');

    const created = await inProcess(['keys', 'create', '--name', 'cli-test', '--json'], { env });
    assert.equal(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout);
    const [list, withNew, otherService] = await Promise.all([
      cli(['keys', '--json'], { env }), // a later process finds the URL and key in the file alone
      inProcess(['jobs', '--json'], { env: { ...env, EXTRACT_SERVICE_API_KEY: key.key } }),
      // The saved key is not sent to another service named by --url.
      inProcess(['jobs', '--url', 'http://127.0.0.1:9'], { env }),
    ]);
    assert.ok(JSON.parse(list.stdout).keys.some((k: { id: string }) => k.id === key.id));
    const human = await inProcess(['keys'], { env });
    assert.match(human.stdout, new RegExp(`^${key.id} +\\S+… +\\S+ +cli-test$`, 'm'));
    assert.ok(!human.stdout.includes(key.key) && !human.stdout.includes(svc.apiKey), 'keys lists no key');
    assert.equal(withNew.code, 0, withNew.stderr);
    assert.equal(otherService.code, 3);
    const revoke = await inProcess(['keys', 'revoke', key.id], { env });
    assert.equal(revoke.code, 0, revoke.stderr);
    const revoked = await inProcess(['jobs'], { env: { ...env, EXTRACT_SERVICE_API_KEY: key.key } });
    assert.equal(revoked.code, 3);
  });

  test('mcp serves the MCP tools on stdio with the URL and key the config file gives', async () => {
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    const childEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !k.startsWith('EXTRACT_SERVICE_')) childEnv[k] = v;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: { ...childEnv, HOME: home, XDG_CONFIG_HOME: join(home, 'config') }, // written by the login test
      stderr: 'pipe',
    });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'extract') && tools.some((t) => t.name === 'list_jobs'));
      const listed = (await client.callTool({ name: 'list_jobs', arguments: {} })) as CallToolResult;
      assert.notEqual(listed.isError, true, JSON.stringify(listed.content));
    } finally {
      await client.close();
    }
  });

  test('under tmux: a crawl --wait shows a moving progress bar, then the summary', async () => {
    const socket = `cli-test-${process.pid}`;
    const tmux = (...args: string[]) => run('tmux', ['-L', socket, ...args]);
    const envs = [`EXTRACT_SERVICE_URL=${base}`, `EXTRACT_SERVICE_API_KEY=${svc.apiKey}`, `HOME=${home}`];
    const quoted = [BIN, ...crawlArgs('--concurrency', '1', '--wait')].map((a) => `'${a}'`).join(' ');
    const command = `env ${envs.join(' ')} ${process.execPath} ${quoted}; echo EXIT=$?; sleep 60`;
    await tmux('new-session', '-d', '-x', '120', '-y', '30', '-s', 'cli', command);
    try {
      const seen = new Set<string>();
      let screen = '';
      const deadline = Date.now() + 60_000;
      while (!/EXIT=\d+/.test(screen) && Date.now() < deadline) {
        screen = (await tmux('capture-pane', '-p', '-t', 'cli')).stdout;
        const bar = /\[([█░]{24})\] (\d+)\/(\d+) pages · (\d+) done · (\d+) queued/.exec(screen);
        if (bar) seen.add(`${bar[2]}/${bar[3]}`);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      assert.match(screen, /EXIT=0/, screen);
      assert.ok(seen.size >= 3, `the bar moved through several states: ${[...seen].join(', ')}\n${screen}`);
      assert.match(screen, /tokens · \$\d+\.\d{4} · \d+\.\d pages\/s/);
      assert.match(
        screen,
        /^completed: \d+ pages, 1 failed, [\d,]+ tokens, \$\d+\.\d+ in \d+\.\ds$/m,
        screen,
      );
      assert.match(screen, /^status +completed$/m);
    } finally {
      await tmux('kill-server').catch(() => undefined);
    }
  });
});
