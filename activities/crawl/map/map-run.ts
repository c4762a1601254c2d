// One map's shared state: its deadline, the URL list being collected, the warnings (sources skipped), what
// was read, robots.txt (as crawls read it), and the guarded fetch options every request of the map uses.
import type { Config } from '../../../shared/config.js';
import { CategorizedError, type ErrorCategory } from '../../../shared/errors.js';
import type { AddressPolicy } from '../../../shared/net/address-policy.js';
import type { GuardedRequest } from '../../../shared/net/guarded-fetch.js';
import type { MapWorkflowInput } from '../../../shared/schemas/job-spec.js';
import { MAX_MAP_WARNINGS, type MapWarning } from '../../../shared/schemas/map.js';
import { type RobotsOptions, robotsAllow } from '../../fetching/robots.js';
import { UrlCollector } from './url-collector.js';

/** What a map job's spec asks of its run. */
export type MapOptions = Pick<
  MapWorkflowInput,
  'url' | 'limit' | 'includeSubdomains' | 'useSitemap' | 'ignoreQuery' | 'respectRobots'
> &
  Partial<Pick<MapWorkflowInput, 'search'>>;

/** Hosts whose robots.txt a map reads at most to decide on listing URLs; URLs on further hosts are left out. */
export const MAX_ROBOTS_ORIGINS = 8;

export class MapRun {
  readonly warnings: MapWarning[] = [];
  readonly collector: UrlCollector;
  sitemapsRead = 0;
  sitemapBytes = 0;
  pagesRead = 0;
  private readonly robots: RobotsOptions;
  private readonly robotsOrigins = new Set<string>();
  private timedOut = false;

  constructor(
    readonly opts: MapOptions,
    readonly config: Config,
    readonly deadline: number,
    readonly signal?: AbortSignal,
  ) {
    this.robots = { allowPrivate: config.ALLOW_PRIVATE_ADDRESSES, timeoutMs: config.FETCH_TIMEOUT_MS };
    this.collector = new UrlCollector({
      seedUrl: opts.url,
      limit: opts.limit,
      includeSubdomains: opts.includeSubdomains,
      search: opts.search,
      ignoreQuery: opts.ignoreQuery,
      allowed: (url) => this.mayList(url),
    });
  }

  /** Nothing more to do: the list is full, the time is up or the job was cancelled. */
  get done(): boolean {
    if (this.signal?.aborted) return true;
    if (!this.timedOut && Date.now() >= this.deadline) {
      this.timedOut = true;
      this.warn(this.opts.url, 'timeout', 'the time budget ran out: the map lists what it had found by then');
    }
    return this.timedOut || this.collector.full;
  }

  get policy(): AddressPolicy {
    return { allowPrivate: this.config.ALLOW_PRIVATE_ADDRESSES };
  }

  /** One request's time: the service's fetch timeout, no longer than the time left. */
  fetchTimeoutMs(): number {
    return Math.max(1, Math.min(this.config.FETCH_TIMEOUT_MS, this.deadline - Date.now()));
  }

  /** Guarded-fetch options for one request: the service's limits, no longer than the time left. */
  request(url: string, maxBytes: number): GuardedRequest {
    return {
      url,
      policy: this.policy,
      timeoutMs: this.fetchTimeoutMs(),
      maxBytes,
      maxRedirects: this.config.FETCH_MAX_REDIRECTS,
      signal: this.signal,
    };
  }

  /** Whether a page or sitemap may be fetched (robots.txt, when respected); a refusal is a warning. */
  async mayFetch(url: string): Promise<boolean> {
    if (!this.opts.respectRobots || (await robotsAllow(url, this.robots))) return true;
    this.warn(url, 'robots_disallowed', 'robots.txt disallows fetching this URL');
    return false;
  }

  robotsOptions(): RobotsOptions {
    return this.robots;
  }

  warn(url: string, category: ErrorCategory, message: string): void {
    if (this.warnings.length < MAX_MAP_WARNINGS)
      this.warnings.push({
        url: url.slice(0, 1000),
        error_category: category,
        message: message.slice(0, 500),
      });
  }

  warnError(url: string, err: unknown): void {
    if (err instanceof CategorizedError) this.warn(url, err.category, err.message);
    else this.warn(url, 'unknown', err instanceof Error ? err.message : String(err));
  }

  private async mayList(url: string): Promise<boolean> {
    if (!this.opts.respectRobots) return true;
    const origin = new URL(url).origin;
    if (!this.robotsOrigins.has(origin)) {
      if (this.robotsOrigins.size >= MAX_ROBOTS_ORIGINS) return false;
      this.robotsOrigins.add(origin);
    }
    return robotsAllow(url, this.robots);
  }
}
