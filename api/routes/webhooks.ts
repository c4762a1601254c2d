// Saved webhooks of the caller's tenant, and the webhook deliveries of webhooks and jobs.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdParamsSchema, PaginationQuerySchema } from '../../shared/schemas/common.js';
import { ProblemSchema, standardErrors } from '../../shared/schemas/problem.js';
import {
  JobDeliveriesSchema,
  WebhookDeliveryListSchema,
  WebhookListSchema,
  WebhookRequestSchema,
  WebhookSchema,
  WebhookTestResultSchema,
} from '../../shared/schemas/webhooks.js';
import type { DeliveryRecord } from '../../shared/store/webhook-deliveries.js';
import type { WebhookDoc } from '../../shared/store/webhooks.js';
import { MASKED_HEADER_VALUE } from '../../shared/webhooks.js';
import type { ApiDeps } from '../deps.js';
import { found, notFound, ProblemError } from '../problem.js';
import { checkCredentialsMove, checkWebhookUrl } from '../webhook-destinations.js';
import { sendTestDelivery } from '../webhook-test.js';

const webhookResource = (doc: WebhookDoc) => ({
  id: doc._id,
  name: doc.name,
  url: doc.url,
  has_secret: doc.sealed_secret !== null,
  events: doc.events,
  // Header values are often credentials: write only, like the secret.
  headers: doc.headers?.map(({ name }) => ({ name, value: MASKED_HEADER_VALUE })) ?? null,
  is_active: doc.is_active,
  created_at: doc.created_at,
  updated_at: doc.updated_at,
});

const deliveryResource = ({ _id, tenant_id, destination, body, ...delivery }: DeliveryRecord) => delivery;

const nameTaken = (name: string) =>
  new ProblemError({ slug: 'conflict', detail: `a webhook named "${name}" already exists` });

const WEBHOOK_DESCRIPTION =
  'Active webhooks receive the events they subscribe to for every job of the tenant. Deliveries are POSTs ' +
  'with Content-Type: application/json, X-Service-Event, X-Service-Delivery (the same on retries) and, with ' +
  'a secret, X-Service-Signature plus the Standard Webhooks headers; 2xx within 30 s is success, otherwise ' +
  'the delivery is retried after 1 and 5 minutes (3 attempts). The URL must be a public http(s) address. ' +
  `Custom header values are stored encrypted and shown as "${MASKED_HEADER_VALUE}" in every response.`;

export const webhookRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    const owned = async (tenantId: string, id: string) =>
      found(await deps.webhooks.get(tenantId, id), `webhook ${id}`);

    app.get(
      '/webhooks',
      {
        schema: {
          summary: 'List your saved webhooks',
          tags: ['webhooks'],
          response: { 200: WebhookListSchema, ...standardErrors },
        },
      },
      async (request) => ({ webhooks: (await deps.webhooks.list(request.tenant._id)).map(webhookResource) }),
    );

    app.post(
      '/webhooks',
      {
        schema: {
          summary: 'Save a webhook',
          description: `${WEBHOOK_DESCRIPTION} 201 with the webhook; 409 when the name is taken.`,
          tags: ['webhooks'],
          body: WebhookRequestSchema,
          response: { 201: WebhookSchema, 409: ProblemSchema, ...standardErrors },
        },
      },
      async (request, reply) => {
        await checkWebhookUrl(deps, request.body.url, 'body.url');
        const doc = await deps.webhooks.create(request.tenant._id, request.body);
        if (!doc) throw nameTaken(request.body.name);
        return reply.code(201).send(webhookResource(doc));
      },
    );

    app.get(
      '/webhooks/:id',
      {
        schema: {
          summary: 'Get a saved webhook (the secret is reported as has_secret only, header values masked)',
          tags: ['webhooks'],
          params: IdParamsSchema,
          response: { 200: WebhookSchema, ...standardErrors },
        },
      },
      async (request) => webhookResource(await owned(request.tenant._id, request.params.id)),
    );

    app.put(
      '/webhooks/:id',
      {
        schema: {
          summary: 'Update a saved webhook',
          description:
            'name, url and is_active are required. A missing secret keeps the stored one, an empty secret ' +
            'removes it; missing events or headers keep the stored ones. A header whose value is sent as ' +
            `"${MASKED_HEADER_VALUE}" (as GET shows it) keeps the stored value of the header with that name. ` +
            'Stored values are kept only while the URL keeps its origin (scheme, host, port): a url on another ' +
            `origin needs the secret, the headers and every "${MASKED_HEADER_VALUE}" value given again, else 422 ` +
            'naming them (body.secret, body.headers, body.headers.<name>). 409 when the new name is taken.',
          tags: ['webhooks'],
          params: IdParamsSchema,
          body: WebhookRequestSchema,
          response: { 200: WebhookSchema, 409: ProblemSchema, ...standardErrors },
        },
      },
      async (request) => {
        const existing = await owned(request.tenant._id, request.params.id);
        await checkWebhookUrl(deps, request.body.url, 'body.url');
        checkCredentialsMove(existing, request.body);
        const updated = await deps.webhooks.update(existing, request.body);
        if (updated === 'conflict') throw nameTaken(request.body.name);
        return webhookResource(updated);
      },
    );

    app.delete(
      '/webhooks/:id',
      {
        schema: {
          summary: 'Delete a saved webhook (jobs already created keep their deliveries)',
          tags: ['webhooks'],
          params: IdParamsSchema,
          response: { 204: z.null().meta({ description: 'Deleted' }), ...standardErrors },
        },
      },
      async (request, reply) => {
        if (!(await deps.webhooks.delete(request.tenant._id, request.params.id))) {
          throw notFound(`webhook ${request.params.id}`);
        }
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/webhooks/:id/test',
      {
        schema: {
          summary: 'Send a test delivery to a saved webhook now',
          description:
            "One POST of the event webhook.test to the webhook's URL, sent now (also when the webhook is not " +
            'active) exactly as deliveries of jobs are: the same custom headers, X-Service-Event, ' +
            'X-Service-Delivery and, with a secret, the same signatures (Standard Webhooks and ' +
            'X-Service-Signature); the same address rules (a private or metadata address is refused unless the ' +
            'operator allows private ones) and 30 s limit, no redirect followed. The body is ' +
            '{"event": "webhook.test", "timestamp", "job_id": null, "data": {webhook_id, webhook_name, message}}. ' +
            'It is sent once, not retried and not recorded among the deliveries. 200 with the outcome, whether ' +
            'the receiver accepted it or not (success, status_code, error_message); never the secret or a ' +
            'header value.',
          tags: ['webhooks'],
          params: IdParamsSchema,
          response: { 200: WebhookTestResultSchema, ...standardErrors },
        },
      },
      async (request) => sendTestDelivery(deps, await owned(request.tenant._id, request.params.id)),
    );

    app.get(
      '/webhooks/:id/deliveries',
      {
        schema: {
          summary: 'Deliveries of a saved webhook, newest first',
          tags: ['webhooks'],
          params: IdParamsSchema,
          querystring: PaginationQuerySchema,
          response: { 200: WebhookDeliveryListSchema, ...standardErrors },
        },
      },
      async (request) => {
        const doc = await owned(request.tenant._id, request.params.id);
        const { deliveries, total } = await deps.webhooks.listDeliveries(`webhook:${doc._id}`, request.query);
        return { deliveries: deliveries.map(deliveryResource), total };
      },
    );

    for (const path of ['/jobs/:id/webhooks', '/jobs/:id/webhook-deliveries']) {
      app.get(
        path,
        {
          schema: {
            summary: "A job's webhook deliveries, newest first, each with its attempts",
            tags: ['jobs'],
            params: IdParamsSchema,
            response: { 200: JobDeliveriesSchema, ...standardErrors },
          },
        },
        async (request) => {
          const job = await deps.jobs.get(request.tenant._id, request.params.id);
          if (!job) throw notFound(`job ${request.params.id}`);
          const { deliveries } = await deps.webhooks.listDeliveries(`job:${job.id}`);
          return { deliveries: deliveries.map(deliveryResource), job_id: job.id };
        },
      );
    }
  };
