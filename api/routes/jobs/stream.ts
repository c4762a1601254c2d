// GET /jobs/{id}/stream: a job's progress as Server-Sent Events, read from the event log.
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdParamsSchema } from '../../../shared/schemas/common.js';
import { standardErrors } from '../../../shared/schemas/problem.js';
import {
  StreamHeadersSchema,
  StreamQuerySchema,
  streamWireEventSchema,
} from '../../../shared/schemas/stream.js';
import { JobStreamCursor, resumePoint, SSE_IDS_PER_SEQ } from '../../../shared/sse-events.js';
import { API_PREFIX } from '../../auth.js';
import { refyneStreamEvent } from '../../compat/refyne-stream.js';
import type { ApiDeps } from '../../deps.js';
import { runJobStream, SSE_HEADERS, StreamSlots } from '../../job-stream.js';
import { notFound, ProblemError } from '../../problem.js';

const DESCRIPTION = `Server-Sent Events (send \`Accept: text/event-stream\`). Every event has \`id\` and \`retry\`; its
\`data\` line is JSON (JobStreamEvent describes each kind).

- \`status\` first (the job when it was created), then again when the job starts and after each page;
- \`result\` per finished page: \`{id, url, status, data, error_category, error_message, llm_provider, llm_model}\`
  (the last two as the Refyne product's SSEResultEvent has them: who answered, null without a model call);
- \`error\` when a page of a multi-page job fails and the job goes on (with \`message\`, the product's field);
- \`complete\` when the job is completed, failed or cancelled; the stream then ends.

Ids are unique and strictly increasing: the i-th event (from 0) told for the job's event number \`seq\` has id
\`seq * ${SSE_IDS_PER_SEQ} + i\`. The stream is a function of the job's event log, so a client connected live
and one connecting after the job ended get the same events with the same ids. Reconnect with
\`Last-Event-ID\` (or \`?last_event_id=\`) to get exactly the events with a larger id; a client resuming
after the end of an ended job gets its \`complete\` event again, so it knows the stream is over. A
\`: heartbeat\` comment comes every 15 seconds.

A tenant holds at most STREAMS_PER_TENANT (default 20) streams open at once (per API instance); one more is a
429 problem of type too-many-streams until one of them ends.

**API version refyne**: each event's data holds exactly the fields of the product's SSEStatusEvent,
SSEResultEvent (no \`data\`: read the page's data from the results), SSECompleteEvent and SSEErrorEvent
(\`{message}\`).`;

/** OpenAPI 3.1 has no event-stream type: the 200 body is documented as a stream of events as sent. */
const EventStreamResponse = z.string().meta({
  description: 'The event stream',
  content: { 'text/event-stream': { schema: streamWireEventSchema() } },
});

/** Headers Fastify already set on the reply (rate limit, ...), for a response written by hand. */
function replyHeaders(reply: FastifyReply) {
  return Object.fromEntries(Object.entries(reply.getHeaders()).filter(([, value]) => value !== undefined));
}

export const streamRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    // Open streams would keep server.close() waiting: end them when the server shuts down.
    const open = new Map<AbortController, Promise<void>>();
    const slots = new StreamSlots(deps.config.STREAMS_PER_TENANT);
    app.addHook('preClose', async () => {
      for (const controller of open.keys()) controller.abort();
      await Promise.allSettled(open.values());
    });

    app.get(
      '/jobs/:id/stream',
      {
        schema: {
          summary: "Follow a job's progress live (Server-Sent Events)",
          description: DESCRIPTION,
          tags: ['jobs'],
          params: IdParamsSchema,
          querystring: StreamQuerySchema,
          headers: StreamHeadersSchema,
          response: { 200: EventStreamResponse, ...standardErrors },
        },
      },
      async (request, reply) => {
        const job = await deps.jobs.get(request.tenant._id, request.params.id);
        if (!job) throw notFound(`job ${request.params.id}`);
        const resumeAfter = resumePoint(request.headers['last-event-id'], request.query.last_event_id);
        const release = slots.take(request.tenant._id);
        if (!release) {
          throw new ProblemError({
            slug: 'too-many-streams',
            detail: `At most ${slots.perTenant} job streams may be open at once; close one first.`,
          });
        }

        const controller = new AbortController();
        try {
          reply.hijack();
          const res = reply.raw;
          res.on('close', () => controller.abort());
          res.writeHead(200, { ...replyHeaders(reply), ...SSE_HEADERS });
          res.flushHeaders();
          const run = runJobStream({
            events: deps.events,
            jobId: job.id,
            cursor: new JobStreamCursor(resumeAfter, `${API_PREFIX}/jobs/${job.id}/results`),
            res,
            heartbeatMs: deps.config.SSE_HEARTBEAT_MS,
            signal: controller.signal,
            log: request.log,
            ...(request.apiVersion === 'refyne' ? { shape: refyneStreamEvent } : {}),
          });
          open.set(controller, run);
          await run;
        } finally {
          // Whatever ended the stream (its job, the client, the server, a throw) frees its slot.
          open.delete(controller);
          release();
        }
        return reply;
      },
    );
  };
