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
  'content_expired',
  'unsupported_content',
  'insufficient_content',
  'no_text_layer',
  'action_failed',
  'login_required',
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
  content_expired: 410,
  unsupported_content: 422,
  insufficient_content: 422,
  no_text_layer: 422,
  action_failed: 422, // a page action (dynamic mode) could not be done: its selector never appeared, …
  login_required: 422, // a stored site's page showed its logged-out sign and no login recipe (or a failed one) helped
  rate_limit: 429,
  quota_exceeded: 429,
  provider_error: 502,
  invalid_key: 401,
  model_unsupported: 422,
  content_too_long: 422,
  llm_truncation: 502,
  parse_error: 502,
  schema_mismatch: 502,
  no_models: 409, // the tenant's model settings (keys, chain) leave no usable model: a conflict with stored state
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

/** A categorized error as plain data, to cross from a thread or a child process and be raised again there. */
export interface ErrorData {
  category: ErrorCategory;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
}

/**
 * An error of a thread's or child's work as data: a CategorizedError as it is; recursive parser code that ran
 * out of stack (input nested thousands deep) as content_too_large, saying `tooDeep`; null for anything else.
 */
export function errorData(err: unknown, tooDeep: string): ErrorData | null {
  if (err instanceof CategorizedError)
    return { category: err.category, message: err.message, retryable: err.retryable, details: err.details };
  if (err instanceof RangeError && /call stack/i.test(err.message))
    return { category: 'content_too_large', message: tooDeep, retryable: false };
  return null;
}

/** The longest provider Retry-After passed on to a caller (a provider may ask for hours; a caller is told at most this). */
export const PROVIDER_RETRY_AFTER_MAX_S = 600;

/**
 * A provider's Retry-After travels with a rate_limit failure inside its message (the job's error_message is
 * what the API reads back), written and read only by these two functions.
 */
export const withRetryAfter = (message: string, seconds: number) => `${message} (retry after ${seconds} s)`;

export function retryAfterOf(message: string | null | undefined): number | null {
  const match = /\(retry after (\d{1,6}) s\)$/.exec(message ?? '');
  if (!match) return null;
  return Math.min(Math.max(Number(match[1]), 1), PROVIDER_RETRY_AFTER_MAX_S);
}
