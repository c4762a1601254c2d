// Exit codes a script can rely on, and the one place that turns any failure into a code and a message.
import { ProblemError } from '../../typescript/src/index.js';

export const EXIT = {
  ok: 0,
  /** The job (or the one page of an extract) failed or was cancelled. */
  jobFailed: 1,
  /** A bad command line, or a request the service refused as invalid (400, 422). */
  usage: 2,
  /** No API key, an unreadable config file, or a key the service refused (401, 403). */
  auth: 3,
  /** The service could not be reached or answered 5xx. */
  unreachable: 4,
  /** The service refused the operation: not found (404), conflict (409), rate or quota limit (429). */
  refused: 5,
  /** --wait (or extract's wait) timed out; the job goes on. */
  timeout: 6,
  /** An unexpected error in the CLI itself (a bug: please report it). */
  internal: 70,
  /** Ctrl-C while waiting; the job goes on. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the CLI itself names, with its exit code. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
  }
}

export interface Failure {
  exitCode: ExitCode;
  message: string;
  problem?: ProblemError;
}

function problemCode(problem: ProblemError): ExitCode {
  // A job's own failure (an extract whose page failed: 502, or whose budget refused the call: 429).
  if (problem.job_id && problem.error_category) return EXIT.jobFailed;
  if (problem.status === 400 || problem.status === 415 || problem.status === 422) return EXIT.usage;
  if (problem.status === 401 || problem.status === 403) return EXIT.auth;
  if (problem.status >= 500) return EXIT.unreachable;
  return EXIT.refused;
}

function problemMessage(problem: ProblemError): string {
  const lines = [`${problem.status} ${problem.title}: ${problem.detail}`];
  for (const e of problem.errors ?? []) lines.push(`  ${e.location}: ${e.message}`);
  if (problem.retryAfter !== undefined) lines.push(`  retry after ${problem.retryAfter} s`);
  return lines.join('\n');
}

/** Network failures of fetch (undici: TypeError "fetch failed" with a cause; aborts on a time limit). */
function isNetworkError(err: unknown): err is Error {
  if (!(err instanceof Error)) return false;
  return (
    (err instanceof TypeError && err.message === 'fetch failed') ||
    err.name === 'TimeoutError' ||
    err.name === 'SocketError' ||
    /ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH/.test(
      String((err as { cause?: unknown }).cause),
    )
  );
}

export function failureOf(err: unknown, url: string): Failure {
  if (err instanceof CliError) return { exitCode: err.exitCode, message: err.message };
  if (err instanceof ProblemError)
    return { exitCode: problemCode(err), message: problemMessage(err), problem: err };
  if (isNetworkError(err)) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? err.message;
    return { exitCode: EXIT.unreachable, message: `cannot reach the service at ${url} (${why})` };
  }
  return {
    exitCode: EXIT.internal,
    message: err instanceof Error ? (err.stack ?? err.message) : String(err),
  };
}
