// @extract-service/client: a typed client of the web data extraction service.
export {
  type AcceptedJob,
  type ClientOptions,
  type CrawlRequest,
  type CrawlResponse,
  createClient,
  type ExtractRequest,
  type ExtractResponse,
  type ExtractServiceClient,
  type Job,
  type JobResult,
  type ResultFormat,
  type ResultsOptions,
  type StartOptions,
  type WaitOptions,
} from './client.js';
export { type Problem, ProblemError } from './errors.js';
export type { RetryOptions } from './retry.js';
export type { components, paths } from './schema.js';
export { type JobStreamEvent, parseSse, type StreamOptions } from './sse.js';
export { type VerifyOptions, verifyWebhook, type WebhookHeaders } from './webhooks.js';
