import { z } from 'zod';
import { DELIVERY_STATUSES, MASKED_HEADER_VALUE, reservedHeaderReason, WEBHOOK_EVENTS } from '../webhooks.js';
import { HttpUrlSchema, TimestampSchema } from './common.js';

export const WebhookHeaderSchema = z
  .object({
    name: z
      .string()
      .min(1)
      .max(256)
      .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { message: 'not a valid header name' })
      .superRefine((v, ctx) => {
        const reason = reservedHeaderReason(v);
        if (reason) ctx.addIssue({ code: 'custom', message: reason });
      })
      .meta({
        description:
          'A header name. Names the service sets (Content-Type, X-Service-*, webhook-*) and connection-control ' +
          'names (Connection, Keep-Alive, Upgrade, Expect, TE, Trailer, Transfer-Encoding, Content-Length, Host, ' +
          'HTTP2-Settings, Proxy-*) are refused (422 naming the header).',
      }),
    value: z
      .string()
      .max(4096)
      .regex(/^[\t\x20-\x7E\x80-\xFF]*$/, {
        message:
          'header values hold visible characters, spaces and tabs only (no line breaks or control characters)',
      }),
  })
  .strict()
  .meta({ id: 'WebhookHeader' });

const HEADERS_DESCRIPTION =
  'Custom headers, at most 10, sent with every delivery. Values (often credentials) are write only: ' +
  `stored encrypted, never logged, shown as "${MASKED_HEADER_VALUE}" in every response.`;

const HeadersSchema = z.array(WebhookHeaderSchema).max(10).meta({ description: HEADERS_DESCRIPTION });

export const WebhookEventNameSchema = z.enum(['*', ...WEBHOOK_EVENTS]).meta({
  id: 'WebhookEventName',
  description:
    'job.started, job.progress (crawls, at most one per second), job.completed, job.failed; * = all. ' +
    'job.completed data: {job_type, status, page_count, cost_usd, budget_exhausted, results, results_truncated, ' +
    'results_total, results_url}; results hold the page results in order up to about 1 MB of JSON ' +
    '(results_truncated says whether some were left out; all of them are at results_url). job.failed data: ' +
    '{job_type, status, error_category, error_message, budget_exhausted}. budget_exhausted: a budget ' +
    "(max_cost_usd, max_tokens, the tenant's monthly budget) stopped the job (see Job). monitor.changed (sent " +
    "by a monitor's run, only when its results differ from the run before; job_id is the run's job) data: " +
    '{monitor_id, monitor_name, previous_job_id, change_id, counts {added, removed, changed}, added, removed, ' +
    'changed, omitted, changes_url} (see MonitorChange).',
});

const EventsSchema = z
  .array(WebhookEventNameSchema)
  .max(10)
  .nullable()
  .meta({ description: 'Events delivered; empty, null or ["*"] means all.' });

const SECRET_DESCRIPTION =
  'Signing secret (write only, at most 256 characters; empty disables signing). With a secret every delivery ' +
  'carries the Standard Webhooks headers webhook-id (the delivery id), webhook-timestamp (Unix seconds of the ' +
  'attempt) and webhook-signature ("v1,<base64 HMAC-SHA256 of id.timestamp.body>"), keyed by the secret\'s ' +
  'UTF-8 bytes, or for a secret "whsec_<base64>" the decoded bytes: verify them and refuse a timestamp more ' +
  'than a few minutes off, against replays. It also carries the legacy X-Service-Signature (lowercase hex ' +
  'HMAC-SHA256 of the body alone, keyed by the UTF-8 bytes): it proves no time, so a captured delivery ' +
  'passes it forever; the clients accept it only when asked to.';

const SecretSchema = z.string().max(256).meta({ description: SECRET_DESCRIPTION });

export const InlineWebhookSchema = z
  .object({
    url: HttpUrlSchema.meta({ description: 'Endpoint receiving POST requests.' }),
    secret: SecretSchema.optional(),
    headers: HeadersSchema.optional(),
    events: EventsSchema.optional(),
  })
  .strict()
  .meta({ id: 'InlineWebhook', description: 'A webhook for this job only.' });

/** The webhook fields of extract and crawl requests. */
export const WebhookSourceFields = {
  webhook: InlineWebhookSchema.optional(),
  webhook_id: z.string().min(1).max(200).optional().meta({
    description: "A saved webhook of yours that receives this job's events (422 when it does not exist).",
  }),
  webhook_url: HttpUrlSchema.optional().meta({
    description: 'An unsigned webhook for this job (all events). Active saved webhooks also receive the job.',
  }),
};

export const WebhookRequestSchema = z
  .object({
    name: z.string().min(1).max(64),
    url: HttpUrlSchema.meta({
      description:
        'Endpoint receiving POST requests. On PUT, stored credentials stay with the origin (scheme, host, port) ' +
        'they were given for: see secret and headers.',
    }),
    secret: SecretSchema.optional().meta({
      description:
        `${SECRET_DESCRIPTION} On PUT a missing secret keeps the stored one only while the url keeps its origin; ` +
        'a url on another origin needs the secret again (or "" for none), else 422 at body.secret: a delivery ' +
        'signed with it could be replayed to the old receiver.',
    }),
    events: EventsSchema.optional(),
    headers: HeadersSchema.nullable()
      .optional()
      .meta({
        description:
          `${HEADERS_DESCRIPTION} On PUT, missing headers keep the stored ones and a value sent as ` +
          `"${MASKED_HEADER_VALUE}" keeps the stored value of the header with that name, only while the url ` +
          'keeps its origin (scheme, host, port); a url on another origin needs them given again, else 422 at ' +
          'body.headers or body.headers.<name>.',
      }),
    is_active: z.boolean(),
  })
  .strict()
  .meta({ id: 'WebhookRequest' });
export type WebhookRequest = z.infer<typeof WebhookRequestSchema>;

export const WebhookSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    url: z.string(),
    has_secret: z.boolean(),
    events: z.array(z.string()).nullable(),
    headers: z
      .array(z.object({ name: z.string(), value: z.string() }))
      .nullable()
      .meta({ description: `Custom headers; every value is shown as "${MASKED_HEADER_VALUE}".` }),
    is_active: z.boolean(),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .meta({ id: 'Webhook' });

export const WebhookListSchema = z.object({ webhooks: z.array(WebhookSchema) }).meta({ id: 'WebhookList' });

export const WebhookDeliverySchema = z
  .object({
    id: z.string().meta({ description: 'The X-Service-Delivery id, the same on every attempt.' }),
    webhook_id: z
      .string()
      .nullable()
      .meta({ description: 'The saved webhook, null for inline or webhook_url.' }),
    job_id: z.string(),
    url: z.string(),
    event_type: z.string(),
    status: z.enum(DELIVERY_STATUSES).meta({
      description:
        'success once an attempt got a 2xx answer; failed when the last allowed attempt did not; retrying ' +
        'between attempts; pending before the first.',
    }),
    attempt_number: z.number().int().meta({ description: 'Attempts made so far (the latest one).' }),
    max_attempts: z.number().int(),
    status_code: z.number().int().nullable().meta({ description: 'HTTP status of the last attempt.' }),
    response_time_ms: z.number().int().nullable(),
    created_at: TimestampSchema,
    delivered_at: TimestampSchema.nullable(),
    error_message: z.string().nullable(),
    attempts: z
      .array(
        z.object({
          attempt_number: z.number().int(),
          status_code: z.number().int().nullable(),
          response_time_ms: z.number().int(),
          error_message: z.string().nullable(),
          at: TimestampSchema.meta({ description: 'When the attempt started.' }),
          success: z.boolean().meta({ description: 'Whether the receiver answered 2xx.' }),
        }),
      )
      .meta({
        description:
          'Every attempt, in order, each recorded when it ends (a failed one with its status_code and ' +
          'error_message).',
      }),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

export const WebhookDeliveryListSchema = z
  .object({ deliveries: z.array(WebhookDeliverySchema), total: z.number().int() })
  .meta({ id: 'WebhookDeliveryList' });

export const JobDeliveriesSchema = z
  .object({ deliveries: z.array(WebhookDeliverySchema), job_id: z.string() })
  .meta({ id: 'JobWebhookDeliveries' });

/** The event name of a test delivery (POST /webhooks/{id}/test): never sent for a job. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

export const WebhookTestResultSchema = z
  .object({
    webhook_id: z.string(),
    delivery_id: z.string().meta({
      description: 'The X-Service-Delivery (and webhook-id) the test was sent with; it is not recorded.',
    }),
    event_type: z.literal(WEBHOOK_TEST_EVENT),
    url: z.string(),
    signed: z
      .boolean()
      .meta({ description: 'Whether the webhook has a secret, so the test carried signatures.' }),
    success: z.boolean().meta({ description: 'Whether the receiver answered 2xx within 30 s.' }),
    status_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The receiver's HTTP status; null when it was not reached." }),
    response_time_ms: z.number().int(),
    error_message: z.string().nullable().meta({
      description:
        "Why the attempt failed (the receiver's status, a timeout, a refused address…), null on success.",
    }),
    at: TimestampSchema.meta({ description: 'When the attempt started.' }),
  })
  .meta({ id: 'WebhookTestResult' });
export type WebhookTestResult = z.infer<typeof WebhookTestResultSchema>;
