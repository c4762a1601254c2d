// The job stream's events (GET /jobs/{id}/stream, Server-Sent Events). Each SSE event is an envelope
// (`event`, `id`, `retry`) whose `data` line holds the JSON described here.
import { z } from 'zod';
import { PAGE_STATUSES } from '../reducers/results.js';
import { ErrorCategorySchema } from './common.js';
import { JobStatusSchema } from './job.js';

const BUDGET_EXHAUSTED =
  'A budget (max_cost_usd, max_tokens or the tenant monthly budget) stopped the job: no new page is started';

export const StreamStatusDataSchema = z.object({
  job_id: z.string(),
  status: JobStatusSchema,
  page_count: z.number().int(),
  urls_queued: z.number().int(),
  failed_count: z.number().int(),
  token_usage_input: z.number().int(),
  token_usage_output: z.number().int(),
  cost_usd: z.number(),
  budget_exhausted: z.boolean().meta({ description: BUDGET_EXHAUSTED }),
});

export const StreamResultDataSchema = z.object({
  id: z.string().meta({ description: 'Page result id' }),
  url: z.string(),
  status: z.enum(PAGE_STATUSES),
  data: z.unknown().meta({ description: 'The extracted data (null unless completed)' }),
  error_category: ErrorCategorySchema.nullable(),
  error_message: z.string().nullable(),
  llm_provider: z.string().nullable().meta({
    description: "The provider that answered (the Refyne product's field); null when no model was called",
  }),
  llm_model: z.string().nullable().meta({
    description: "The model that answered (the Refyne product's field); null when no model was called",
  }),
});

export const StreamErrorDataSchema = z.object({
  job_id: z.string(),
  url: z.string(),
  error_category: ErrorCategorySchema,
  error_message: z.string(),
  message: z.string().meta({
    description: "The page's URL and error in one line (the Refyne product's SSEErrorEvent field)",
  }),
});

export const StreamCompleteDataSchema = z.object({
  job_id: z.string(),
  status: JobStatusSchema,
  page_count: z.number().int(),
  failed_count: z.number().int(),
  cost_usd: z.number(),
  budget_exhausted: z.boolean().meta({ description: BUDGET_EXHAUSTED }),
  error_category: ErrorCategorySchema.nullable(),
  error_message: z.string().nullable(),
  results_url: z.string(),
});

const envelope = <E extends string, D extends z.ZodType>(event: E, data: D, description: string) =>
  z
    .object({
      event: z.literal(event),
      id: z
        .number()
        .int()
        .meta({
          description:
            'Unique, strictly increasing: seq * 10 + the position of the event among those told for the ' +
            "job's event number seq. Send it back as Last-Event-ID to get exactly the events after it",
        }),
      retry: z.number().int().meta({ description: 'Milliseconds a client waits before reconnecting' }),
      data,
    })
    .meta({ description });

export const StreamEventSchema = z
  .discriminatedUnion('event', [
    envelope('status', StreamStatusDataSchema, 'Job status: first in the stream, then on progress'),
    envelope('result', StreamResultDataSchema, 'A page finished (completed, failed or skipped)'),
    envelope('error', StreamErrorDataSchema, 'A page failed; the job goes on'),
    envelope('complete', StreamCompleteDataSchema, 'The job ended; the stream closes after this event'),
  ])
  .meta({ id: 'JobStreamEvent', description: 'One Server-Sent Event of a job stream' });
export type StreamEvent = z.infer<typeof StreamEventSchema>;

const STREAM_DATA = [
  ['status', StreamStatusDataSchema, 'JobStreamStatusData'],
  ['result', StreamResultDataSchema, 'JobStreamResultData'],
  ['error', StreamErrorDataSchema, 'JobStreamErrorData'],
  ['complete', StreamCompleteDataSchema, 'JobStreamCompleteData'],
] as const;
for (const [, schema, id] of STREAM_DATA) schema.meta({ id });

/**
 * An event as it is on the wire (text/event-stream): every field is text, `data` one line of JSON described
 * by `contentSchema`. JobStreamEvent is the same event parsed (what the clients yield).
 */
export const streamWireEventSchema = () => ({
  description: 'One Server-Sent Event as sent: text fields; `data` is one line of JSON',
  oneOf: STREAM_DATA.map(([event, , id]) => ({
    type: 'object',
    required: ['event', 'id', 'retry', 'data'],
    properties: {
      event: { type: 'string', const: event },
      id: { type: 'string', pattern: '^[0-9]+$', description: 'The event id (an integer, as text)' },
      retry: { type: 'integer', minimum: 0, description: 'Milliseconds a client waits before reconnecting' },
      data: {
        type: 'string',
        contentMediaType: 'application/json',
        contentSchema: { $ref: `#/components/schemas/${id}` },
      },
    },
  })),
});
export type StreamStatusData = z.infer<typeof StreamStatusDataSchema>;
export type StreamResultData = z.infer<typeof StreamResultDataSchema>;
export type StreamErrorData = z.infer<typeof StreamErrorDataSchema>;
export type StreamCompleteData = z.infer<typeof StreamCompleteDataSchema>;

export const StreamQuerySchema = z.object({
  last_event_id: z.coerce.number().int().min(0).optional().meta({
    description: 'Resume after this event id, for clients that cannot send the Last-Event-ID header',
  }),
});

export const StreamHeadersSchema = z.object({
  'last-event-id': z.string().optional().meta({
    description:
      'Resume after this event id (sent by EventSource when it reconnects): only later events come',
  }),
});
