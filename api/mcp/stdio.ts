// The MCP server over stdio, for MCP clients that start a local process (`tsx api/mcp/stdio.ts`, later
// `extract-service mcp`). It holds no database or workflow connection: every tool calls a running service
// over HTTP (EXTRACT_SERVICE_URL) with an API key (EXTRACT_SERVICE_API_KEY), so authorization, validation
// and rate limits are the service's own. stdout carries the protocol only; problems go to stderr.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { fetchCall } from './api-call.js';
import { createMcpServer } from './tools.js';

export const StdioConfigSchema = z.object({
  EXTRACT_SERVICE_URL: z
    .url({ protocol: /^https?$/ })
    .default('http://127.0.0.1:8080')
    .meta({ description: 'Base URL of the running service (no /api/v1).' }),
  EXTRACT_SERVICE_API_KEY: z
    .string()
    .min(1)
    .max(500)
    .meta({ description: 'An API key of the tenant to act as.' }),
  EXTRACT_SERVICE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(900_000).default(660_000).meta({
    description: "Each request's time limit (default: longer than the longest EXTRACT_WAIT_SECONDS).",
  }),
});
export type StdioConfig = z.infer<typeof StdioConfigSchema>;

/** Reads the configuration once; a bad one is a message naming the variables, never their values. */
export function loadStdioConfig(env: NodeJS.ProcessEnv): StdioConfig {
  const parsed = StdioConfigSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const names = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  throw new Error(`MCP stdio server: bad configuration (${names.join('; ')})`);
}

/** Serves MCP on this process's stdin/stdout until stdin closes. */
export async function serveStdio(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadStdioConfig(env);
  const server = createMcpServer(
    fetchCall(config.EXTRACT_SERVICE_URL, config.EXTRACT_SERVICE_API_KEY, config.EXTRACT_SERVICE_TIMEOUT_MS),
  );
  await server.connect(new StdioServerTransport());
}

const isMain = (() => {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
})();

if (isMain) {
  serveStdio().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
