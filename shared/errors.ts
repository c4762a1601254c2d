// One error vocabulary for jobs, pages, activities and HTTP problems.
export const ERROR_CATEGORIES = [
  'invalid_input',
  'ssrf_blocked',
  'robots_disallowed',
  'fetch_error',
  'fetch_timeout',
  'http_status',
  'blocked',
  'content_too_large',
  'unsupported_content',
  'insufficient_content',
  'rate_limit',
  'quota_exceeded',
  'provider_error',
  'invalid_key',
  'model_unsupported',
  'content_too_long',
  'llm_truncation',
  'parse_error',
  'schema_mismatch',
  'no_models',
  'timeout',
  'processing_timeout',
  'cancelled',
  'unknown',
] as const;
export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

export function isErrorCategory(value: unknown): value is ErrorCategory {
  return typeof value === 'string' && (ERROR_CATEGORIES as readonly string[]).includes(value);
}

/** HTTP status a synchronous endpoint answers when a job ends with this category. */
export const CATEGORY_HTTP_STATUS: Record<ErrorCategory, number> = {
  invalid_input: 422,
  ssrf_blocked: 422,
  robots_disallowed: 422,
  fetch_error: 502,
  fetch_timeout: 504,
  http_status: 502,
  blocked: 502,
  content_too_large: 422,
  unsupported_content: 422,
  insufficient_content: 422,
  rate_limit: 429,
  quota_exceeded: 429,
  provider_error: 502,
  invalid_key: 401,
  model_unsupported: 422,
  content_too_long: 422,
  llm_truncation: 502,
  parse_error: 502,
  schema_mismatch: 502,
  no_models: 422,
  timeout: 504,
  processing_timeout: 422,
  cancelled: 409,
  unknown: 500,
};

/** An error that carries its category; activities turn it into an ApplicationFailure of that type. */
export class CategorizedError extends Error {
  constructor(
    readonly category: ErrorCategory,
    message: string,
    readonly retryable = false,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'CategorizedError';
  }
}
