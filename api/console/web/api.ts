// The console's access to the service: its own session routes (/console/session, outside the API), and the API
// itself through the project's generated TypeScript client, authenticated by the session cookie and carrying
// the session's CSRF token.
import {
  createClient,
  type ExtractServiceClient,
  type Problem,
  ProblemError,
} from '../../../clients/typescript/src/index.js';

export type { components } from '../../../clients/typescript/src/index.js';
export { ProblemError };
export type Api = ExtractServiceClient;

export interface SessionInfo {
  tenant: { id: string; name: string };
  csrf_token: string;
  expires_at: string;
  signed_in_with: 'api_key' | 'link';
}

async function problemOf(response: Response): Promise<ProblemError> {
  const body = (await response.json().catch(() => null)) as Problem | null;
  if (body && typeof body.title === 'string') return new ProblemError({ ...body, errors: body.errors ?? [] });
  return new ProblemError({
    type: 'about:blank',
    status: response.status,
    title: response.statusText || `HTTP ${response.status}`,
    detail: 'The service answered with an error.',
    instance: '',
    errors: [],
  });
}

const sessionUrl = '/console/session';

export async function currentSession(): Promise<SessionInfo | null> {
  const response = await fetch(sessionUrl, { headers: { accept: 'application/json' } });
  if (response.status === 401) return null;
  if (!response.ok) throw await problemOf(response);
  return response.json();
}

export async function signIn(body: { api_key: string } | { link_token: string }): Promise<SessionInfo> {
  const response = await fetch(sessionUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw await problemOf(response);
  return response.json();
}

export async function signOut(session: SessionInfo): Promise<void> {
  const response = await fetch(sessionUrl, {
    method: 'DELETE',
    headers: { 'x-csrf-token': session.csrf_token },
  });
  if (!response.ok) throw await problemOf(response);
}

export const clientFor = (session: SessionInfo): Api =>
  createClient({ baseUrl: location.origin, headers: { 'x-csrf-token': session.csrf_token }, retries: 1 });

/** openapi-fetch's answer as data, or its problem document thrown as a ProblemError. */
export async function call<T>(
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await pending;
  if (response.ok) return data as T;
  const problem = error as Problem | undefined;
  if (problem && typeof problem.title === 'string')
    throw new ProblemError({ ...problem, errors: problem.errors ?? [] });
  throw await problemOf(response);
}

/** What to show for an error: the problem's title and detail (and each bad field), else the message. */
export function describeError(err: unknown): { title: string; detail: string; fields: string[] } {
  if (err instanceof ProblemError)
    return {
      title: err.title,
      detail: err.detail,
      fields: (err.errors ?? []).map((e) => `${e.location}: ${e.message}`),
    };
  return { title: 'Error', detail: err instanceof Error ? err.message : String(err), fields: [] };
}
