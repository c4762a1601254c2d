// replay ID: what happened in a job, told again from its stored event log. The API keeps every job's
// events (GET /jobs/{id}/stream answers them from the first, then live until the end) and, for a job run
// with capture_debug, each model request and response (GET /jobs/{id}/debug-capture). This reads both; it
// re-runs nothing (`retry` starts a new job).
import type { Command } from 'commander';
import type { JobStreamEvent } from '../../../typescript/src/index.js';
import { type Context, createContext } from '../context.js';
import { integer } from '../request.js';
import { unwrap } from './jobs.js';

function describe(e: JobStreamEvent): string {
  const d = e.data;
  switch (e.event) {
    case 'status': {
      const s = e.data;
      const tokens = s.token_usage_input + s.token_usage_output;
      return `${s.status}: ${s.page_count} done, ${s.urls_queued} queued, ${s.failed_count} failed, ${tokens} tokens, $${s.cost_usd.toFixed(4)}`;
    }
    case 'result': {
      const r = e.data;
      return `${r.status} ${r.url}${r.error_category ? ` (${r.error_category}: ${r.error_message})` : ''}`;
    }
    case 'error':
      return `${e.data.url} ${e.data.error_category}: ${e.data.error_message}`;
    case 'complete': {
      const c = e.data;
      const why =
        c.error_message && c.status !== 'completed' ? ` (${c.error_category}: ${c.error_message})` : '';
      return `${c.status}: ${c.page_count} pages, ${c.failed_count} failed, $${c.cost_usd.toFixed(4)}${why}`;
    }
    default:
      return JSON.stringify(d);
  }
}

async function printCaptures(ctx: Context, id: string): Promise<void> {
  const params = { path: { id } };
  const report = unwrap(await ctx.client().api.GET('/api/v1/jobs/{id}/debug-capture', { params }));
  if (ctx.json) return ctx.out(JSON.stringify({ event: 'debug_capture', data: report }));
  if (!report.enabled) return ctx.note(`job ${id} ran without capture_debug: no model calls were kept`);
  for (const c of report.captures) {
    const r = c.response;
    const outcome = r.success ? 'ok' : `failed (${r.error_category}: ${r.error || r.parse_error})`;
    ctx.out(
      `model #${c.sequence} ${c.url} ${c.request.provider}/${c.request.model}` +
        `${c.request.fallback_position > 0 ? ` fallback ${c.request.fallback_position}` : ''}` +
        `${c.request.is_retry ? ' retry' : ''}: ${outcome}, ${r.input_tokens}+${r.output_tokens} tokens, ` +
        `$${r.cost_usd.toFixed(4)}, ${r.duration_ms} ms`,
    );
  }
  ctx.out(
    `model calls: ${report.total_requests}, ${report.total_tokens_in}+${report.total_tokens_out} tokens, ` +
      `$${report.total_cost_usd.toFixed(4)}, ${report.total_duration_ms} ms`,
  );
}

export function replayCommand(program: Command): void {
  program
    .command('replay')
    .description('tell a job again from its event log (live to its end when it still runs); re-runs nothing')
    .argument('<id>', 'job id')
    .option('--after <event-id>', 'start after this event id (as Last-Event-ID)', integer(0))
    .option('--captures', 'then the model requests and responses kept with --capture-debug')
    .action(async (id: string, flags: { after?: number; captures?: boolean }, command: Command) => {
      const ctx = createContext(command);
      for await (const event of ctx.client().stream(id, { lastEventId: flags.after })) {
        if (ctx.json) ctx.out(JSON.stringify({ event: event.event, id: event.id, data: event.data }));
        else ctx.out(`#${event.id} ${event.event.padEnd(8)} ${describe(event)}`);
      }
      if (flags.captures) await printCaptures(ctx, id);
    });
}
