// crawl URL [--follow SELECTOR] [--pattern REGEX] [--max-pages N] [--wait]: starts a crawl; with --wait,
// follows it with a live progress bar and exits 1 when it did not complete.
import type { Command } from 'commander';
import type { CrawlRequest } from '../../../typescript/src/index.js';
import { createContext } from '../context.js';
import { addJobOptions, integer, type JobFlags, jobFields } from '../request.js';
import { jobOutcome, watchJob } from '../watch.js';
import { printJob } from './jobs.js';

interface CrawlFlags extends JobFlags {
  follow?: string;
  pattern?: string;
  next?: string;
  maxPages?: number;
  maxDepth?: number;
  concurrency?: number;
  delay?: string;
  robots?: boolean;
  learn?: boolean;
  wait?: boolean;
  timeout?: number;
}

function crawlOptions(flags: CrawlFlags): CrawlRequest['options'] {
  return {
    ...(flags.follow ? { follow_selector: flags.follow } : {}),
    ...(flags.pattern ? { follow_pattern: flags.pattern } : {}),
    ...(flags.next ? { next_selector: flags.next } : {}),
    ...(flags.maxPages !== undefined ? { max_pages: flags.maxPages } : {}),
    ...(flags.maxDepth !== undefined ? { max_depth: flags.maxDepth } : {}),
    ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
    ...(flags.delay ? { delay: flags.delay } : {}),
    ...(flags.robots === false ? { respect_robots: false } : {}),
  };
}

export function crawlCommand(program: Command): void {
  addJobOptions(
    program
      .command('crawl')
      .description('start a crawl; prints the job id (--wait: follows it live, then prints the job)')
      .argument('<url>', 'the first page'),
  )
    .option('-f, --follow <selector>', 'CSS selector of the links to follow')
    .option('-p, --pattern <regex>', 'follow only URLs matching this RE2 regular expression')
    .option('--next <selector>', 'CSS selector of the next-page link')
    .option('-n, --max-pages <n>', 'pages processed at most (service default 50)', integer(1))
    .option('--max-depth <n>', 'link depth from the first page (service default 2)', integer(0))
    .option('--concurrency <n>', 'pages in flight at once (service default 3)', integer(1))
    .option('--delay <duration>', 'time between two requests to one host, e.g. 500ms or 1s')
    .option('--no-robots', 'ignore robots.txt (only for sites you own)')
    .option('--no-learn', 'do not learn extractors (every page goes to the model)')
    .option('-w, --wait', 'follow the crawl to its end with a progress bar')
    .option(
      '--timeout <seconds>',
      'with --wait: stop waiting after this long (the crawl goes on)',
      integer(1),
    )
    .action(async (url: string, flags: CrawlFlags, command: Command) => {
      const ctx = createContext(command);
      const body: CrawlRequest = {
        url,
        ...jobFields(flags),
        options: crawlOptions(flags),
        ...(flags.learn === false ? { learn_extractors: false } : {}),
      };
      const started = await ctx.client().crawl(body, { idempotencyKey: flags.idempotencyKey });
      if (!flags.wait) {
        if (ctx.json) return ctx.outJson(started);
        ctx.out(started.job_id);
        ctx.note(
          `crawl ${started.job_id} ${started.status}; follow it: extract-service job ${started.job_id}`,
        );
        return;
      }
      ctx.note(`crawl ${started.job_id} ${started.status}`);
      const job = await watchJob(ctx, started.job_id, { maxPages: flags.maxPages, timeout: flags.timeout });
      if (ctx.json) ctx.outJson(job);
      else printJob(ctx, job);
      jobOutcome(job);
    });
}
