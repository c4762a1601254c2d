// extract URL --schema …: one page → its data on stdout (the whole answer with --json).
import type { Command } from 'commander';
import { createContext } from '../context.js';
import { CliError, EXIT } from '../exit.js';
import { addJobOptions, integer, type JobFlags, jobFields } from '../request.js';
import { jobOutcome, watchJob } from '../watch.js';

interface ExtractFlags extends JobFlags {
  timeout?: number;
}

export function extractCommand(program: Command): void {
  addJobOptions(
    program
      .command('extract')
      .description('extract data from one page; prints the data (the whole answer with --json)')
      .argument('<url>', 'the page'),
  )
    .option('--timeout <seconds>', 'longest wait when the service answers 202 (default 600)', integer(1))
    .action(async (url: string, flags: ExtractFlags, command: Command) => {
      const ctx = createContext(command);
      const client = ctx.client();
      const body = { url, ...jobFields(flags) };
      const answer = await client.extract(body, { idempotencyKey: flags.idempotencyKey });
      if ('data' in answer) {
        if (ctx.json) return ctx.outJson(answer);
        ctx.outJson(answer.data);
        const m = answer.metadata;
        const tokens = answer.usage.input_tokens + answer.usage.output_tokens;
        ctx.note(
          `${answer.job_id} · ${m.provider}/${m.model} · ${m.data_source} · ${tokens} tokens · ` +
            `$${answer.usage.cost_usd.toFixed(4)} · ${m.extract_duration_ms} ms`,
        );
        return;
      }
      // 202: it takes longer than the service waits; follow the job, then read its one result.
      ctx.note(`job ${answer.job_id} is ${answer.status}; waiting for it`);
      const job = await watchJob(ctx, answer.job_id, { timeout: flags.timeout ?? 600 });
      jobOutcome(job);
      const [result] = await client.results(job.id);
      if (!result) throw new CliError(`job ${job.id} completed without a result`, EXIT.jobFailed);
      if (ctx.json) return ctx.outJson(result);
      ctx.outJson(result.data);
    });
}
