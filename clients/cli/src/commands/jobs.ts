// jobs, job ID, results ID, cancel ID, retry ID: reading and steering the caller's jobs.
import { type Command, Option } from 'commander';
import { problemOf } from '../../../typescript/src/errors.js';
import type { Job } from '../../../typescript/src/index.js';
import type { Context } from '../context.js';
import { createContext } from '../context.js';
import { integer } from '../request.js';
import { jobOutcome, watchJob } from '../watch.js';

/** openapi-fetch's answer: the data of a 2xx, else its problem as a ProblemError. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (!result.response.ok || result.data === undefined) throw problemOf(result.response, result.error);
  return result.data;
}

const usd = (n: number) => `$${n.toFixed(4)}`;
const when = (iso: string | null) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-');

export function printJob(ctx: Context, job: Job): void {
  const rows: [string, string | number][] = [
    ['id', job.id],
    ['type', job.type],
    ['status', job.status],
    ['url', job.url],
    ['pages', `${job.page_count} done, ${job.failed_count} failed, ${job.urls_queued} queued`],
    ['tokens', `${job.token_usage_input} in, ${job.token_usage_output} out`],
    ['cost', usd(job.cost_usd)],
    ['created', when(job.created_at)],
    ['completed', when(job.completed_at)],
    ['duration', job.duration_ms === null ? '-' : `${(job.duration_ms / 1000).toFixed(1)} s`],
  ];
  // A completed crawl keeps its last page failure here; a failed job its reason.
  const errorLabel = job.status === 'completed' ? 'failure' : 'error';
  if (job.error_message) rows.push([errorLabel, `${job.error_category}: ${job.error_message}`]);
  if (job.retry_of) rows.push(['retry of', job.retry_of]);
  ctx.out(rows.map(([k, v]) => `${k.padEnd(10)}${v}`).join('\n'));
}

function printJobTable(ctx: Context, jobs: Job[]): void {
  if (jobs.length === 0) {
    ctx.note('no jobs');
    return;
  }
  const rows = jobs.map((j) => [
    j.id,
    j.type,
    j.status,
    String(j.page_count),
    String(j.failed_count),
    usd(j.cost_usd),
    when(j.created_at),
    j.url,
  ]);
  const head = ['ID', 'TYPE', 'STATUS', 'PAGES', 'FAILED', 'COST', 'CREATED', 'URL'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  ctx.out([line(head), ...rows.map(line)].join('\n'));
}

const JOB_TYPES = ['extract', 'crawl', 'analyze', 'map'] as const;
const JOB_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
interface JobsFlags {
  limit?: number;
  offset?: number;
  type?: (typeof JOB_TYPES)[number];
  status?: (typeof JOB_STATUSES)[number];
}

export function jobCommands(program: Command): void {
  program
    .command('jobs')
    .description('list your jobs, newest first')
    .option('-l, --limit <n>', 'how many (1..100, default 20)', integer(1))
    .option('--offset <n>', 'skip this many', integer(0))
    .addOption(new Option('--type <type>', 'only jobs of this type').choices(JOB_TYPES))
    .addOption(new Option('--status <status>', 'only jobs in this status').choices(JOB_STATUSES))
    .action(async (flags: JobsFlags, command: Command) => {
      const ctx = createContext(command);
      const { type, status } = flags;
      const query = {
        limit: flags.limit ?? 20,
        offset: flags.offset ?? 0,
        ...(type ? { type } : {}),
        ...(status ? { status } : {}),
      };
      const list = unwrap(await ctx.client().api.GET('/api/v1/jobs', { params: { query } }));
      if (ctx.json) return ctx.outJson(list);
      printJobTable(ctx, list.jobs);
    });

  program
    .command('job')
    .description('show one job')
    .argument('<id>', 'job id')
    .action(async (id: string, _flags: object, command: Command) => {
      const ctx = createContext(command);
      const job = await ctx.client().job(id);
      if (ctx.json) return ctx.outJson(job);
      printJob(ctx, job);
    });

  program
    .command('results')
    .description("write a job's results to stdout (nothing else goes there)")
    .argument('<id>', 'job id')
    .addOption(new Option('--format <format>', 'json, jsonl or yaml').choices(['json', 'jsonl', 'yaml']))
    .option('--merge', "one de-duplicated array merged from the pages' data")
    .option('--provenance', 'where each value came from')
    .action(
      async (
        id: string,
        flags: { format?: 'json' | 'jsonl' | 'yaml'; merge?: boolean; provenance?: boolean },
        command: Command,
      ) => {
        const ctx = createContext(command);
        const format = flags.format ?? 'json';
        const opts = { merge: Boolean(flags.merge), includeProvenance: Boolean(flags.provenance) };
        if (format === 'json')
          return ctx.outJson(await ctx.client().results(id, { ...opts, merge: opts.merge as false }));
        const text = await ctx.client().results(id, { ...opts, format });
        if (text.length > 0) ctx.out(text);
      },
    );

  program
    .command('cancel')
    .description('cancel a pending or running job')
    .argument('<id>', 'job id')
    .action(async (id: string, _flags: object, command: Command) => {
      const ctx = createContext(command);
      const job = await ctx.client().cancel(id);
      if (ctx.json) return ctx.outJson(job);
      ctx.out(`${job.id} ${job.status}`);
    });

  program
    .command('retry')
    .description("re-run a finished job's failed pages as a new job (an extract runs again); prints its id")
    .argument('<id>', 'job id')
    .option('-w, --wait', 'follow the new job to its end')
    .option('--timeout <seconds>', 'with --wait: stop waiting after this long', integer(1))
    .action(async (id: string, flags: { wait?: boolean; timeout?: number }, command: Command) => {
      const ctx = createContext(command);
      const job = await ctx.client().retry(id);
      if (!flags.wait) {
        if (ctx.json) return ctx.outJson(job);
        ctx.out(job.id);
        ctx.note(`job ${job.id} retries ${id}`);
        return;
      }
      ctx.note(`job ${job.id} retries ${id}`);
      const done = await watchJob(ctx, job.id, { timeout: flags.timeout });
      if (ctx.json) ctx.outJson(done);
      else printJob(ctx, done);
      jobOutcome(done);
    });
}
