// What an API key may do (its scopes) and which shape of the API it gets (its pinned API version). Pure, so the
// API's checks and the admin commands read the same rules.

/**
 * full: everything. read: every read (GET), nothing that starts work or changes settings. extract: one-page
 * jobs (extract, analyze, map) and reading jobs. crawl: crawls and reading jobs. jobs: reading jobs only.
 */
export const API_KEY_SCOPES = ['full', 'read', 'extract', 'crawl', 'jobs'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** What a route does, as far as scopes go (api/scopes.ts assigns one or more to every route). */
export const ROUTE_ACCESS = ['read', 'jobs.read', 'extract', 'crawl', 'manage', 'any'] as const;
export type RouteAccess = (typeof ROUTE_ACCESS)[number];

const GRANTS: Record<ApiKeyScope, readonly RouteAccess[]> = {
  full: ROUTE_ACCESS,
  read: ['read', 'jobs.read', 'any'],
  extract: ['extract', 'jobs.read', 'any'],
  crawl: ['crawl', 'jobs.read', 'any'],
  jobs: ['jobs.read', 'any'],
};

/** Whether a key with these scopes may use a route needing any one of `needs`. */
export const scopesAllow = (scopes: readonly ApiKeyScope[], needs: readonly RouteAccess[]) =>
  scopes.some((scope) => needs.some((need) => GRANTS[scope].includes(need)));

/** The scopes that would allow a route needing any one of `needs` (for the 403's message). */
export const scopesFor = (needs: readonly RouteAccess[]): ApiKeyScope[] =>
  API_KEY_SCOPES.filter((scope) => needs.some((need) => GRANTS[scope].includes(need)));

/**
 * v1: the interface as written (the default). refyne: every response shaped exactly as the models of the
 * Refyne product's published SDKs declare them, so those SDKs work unchanged (api/compat/).
 */
export const API_VERSIONS = ['v1', 'refyne'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const DEFAULT_API_VERSION: ApiVersion = 'v1';
export const isApiVersion = (value: string): value is ApiVersion =>
  (API_VERSIONS as readonly string[]).includes(value);
