// Every error answer of the service is an RFC 9457 problem document: one typed exception carries it.
import type { components } from './schema.js';

export type Problem = components['schemas']['Problem'];

/** A problem+json answer (or any non-2xx answer, read as well as it can be) as an exception. */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  readonly type: string;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly instance: string | undefined;
  readonly job_id: string | undefined;
  readonly error_category: string | undefined;
  readonly errors: Problem['errors'];
  /** Seconds from the Retry-After header, when the service sent one (429, 503). */
  readonly retryAfter: number | undefined;

  constructor(problem: Problem, retryAfter?: number) {
    super(`${problem.status} ${problem.title}: ${problem.detail}`);
    this.type = problem.type;
    this.status = problem.status;
    this.title = problem.title;
    this.detail = problem.detail;
    this.instance = problem.instance;
    this.job_id = problem.job_id;
    this.error_category = problem.error_category;
    this.errors = problem.errors ?? [];
    this.retryAfter = retryAfter;
  }
}

function isProblem(value: unknown): value is Problem {
  const p = value as Partial<Problem> | null;
  return typeof p === 'object' && p !== null && typeof p.status === 'number' && typeof p.title === 'string';
}

/** The exception for an error response (its body not yet read). */
export async function problemFrom(response: Response): Promise<ProblemError> {
  const text = await response.text().catch(() => '');
  try {
    return problemOf(response, JSON.parse(text));
  } catch {
    return problemOf(response, text);
  }
}

/** The exception for an error response whose body was read (parsed JSON, or text). */
export function problemOf(response: Response, body: unknown): ProblemError {
  const retryAfter = retryAfterMs(response.headers.get('retry-after'));
  const seconds = retryAfter === undefined ? undefined : retryAfter / 1000;
  if (isProblem(body)) return new ProblemError({ ...body, errors: body.errors ?? [] }, seconds);
  return new ProblemError(
    {
      type: 'about:blank',
      status: response.status,
      title: response.statusText || `HTTP ${response.status}`,
      detail: typeof body === 'string' ? body.slice(0, 500) : JSON.stringify(body ?? null).slice(0, 500),
      instance: response.url ? new URL(response.url).pathname : '',
      errors: [],
    },
    seconds,
  );
}

/** Retry-After as milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
