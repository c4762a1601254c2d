// POST /mcp: the MCP server over Streamable HTTP, stateless. Each request gets its own server and transport
// (no session id, nothing kept between requests), so any API instance behind a load balancer can answer any
// request, and answers are plain JSON (no SSE stream held open). The caller's bearer key is checked by the
// API's onRequest hook (api/auth.ts) and the request counts against the tenant's rate limit like any route;
// each tool then calls /api/v1 in process as the same key, so a tool call counts a second time there.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MCP_PATH } from '../auth.js';
import { injectCall } from './api-call.js';
import { createMcpServer } from './tools.js';

const DESCRIPTION =
  'The MCP server (Model Context Protocol, Streamable HTTP, stateless, JSON answers). Not part of this ' +
  'OpenAPI document; see docs/clients.md, section MCP. Tools: extract, crawl, job_status, job_results, analyze, ' +
  'map, list_jobs, cancel_job.';

/** A web Request carrying the Fastify request's method, URL and headers (the body is passed parsed). */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(new URL(request.url, 'http://localhost'), { method: request.method, headers });
}

async function handle(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
  const server = createMcpServer(injectCall(app, request.headers.authorization ?? ''));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    const res = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
    reply.code(res.status);
    res.headers.forEach((value, name) => {
      reply.header(name, value);
    });
    return reply.send(await res.text());
  } finally {
    await server.close();
  }
}

/** GET (a server-sent event stream) and DELETE (ending a session) have no meaning without sessions. */
function methodNotAllowed(_request: FastifyRequest, reply: FastifyReply) {
  return reply
    .code(405)
    .header('allow', 'POST')
    .send({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: 'Method not allowed: this MCP server is stateless; POST JSON-RPC messages.',
      },
      id: null,
    });
}

export const mcpRoutes = () => async (app: FastifyInstance) => {
  app.post(
    MCP_PATH,
    { schema: { hide: true, summary: 'MCP server', description: DESCRIPTION } },
    (request, reply) => handle(app, request, reply),
  );
  app.get(MCP_PATH, { schema: { hide: true } }, methodNotAllowed);
  app.delete(MCP_PATH, { schema: { hide: true } }, methodNotAllowed);
};
