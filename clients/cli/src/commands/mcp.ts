// mcp: the MCP server on stdin/stdout (api/mcp/stdio.ts) with the CLI's URL and key, for MCP clients that
// start a local process. stdout carries the protocol only.
import type { Command } from 'commander';
import { ENV_URL, requireKey } from '../config.js';
import { createContext } from '../context.js';

export function mcpCommand(program: Command): void {
  program
    .command('mcp')
    .description(
      'serve MCP over stdio (tools: extract, crawl, job_status, job_results, analyze, list_jobs, cancel_job)',
    )
    .action(async (_flags: object, command: Command) => {
      const ctx = createContext(command);
      const settings = ctx.settings();
      const key = requireKey(settings);
      // Loaded only here: the other commands need neither the MCP SDK nor the API's schemas.
      const { serveStdio } = await import('../../../../api/mcp/stdio.js');
      await serveStdio({ ...ctx.env, [ENV_URL]: settings.url, EXTRACT_SERVICE_API_KEY: key });
    });
}
