// Configuration is read once from the environment by each entry point and passed down as values.
import { z } from 'zod';

const bool = z
  .union([z.boolean(), z.string()])
  .transform((v) => (typeof v === 'boolean' ? v : ['1', 'true', 'yes', 'on'].includes(v.toLowerCase())));
const emptyAsUndefined = (v: unknown) => (v === '' ? undefined : v);
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());

/** One named limit set of PRICING_TIERS; a limit left out is the service's default (none, or RATE_LIMIT_PER_MINUTE). */
export const PricingTierSchema = z
  .object({
    display_name: z.string().min(1).max(100).optional(),
    rate_limit_per_minute: z.number().int().min(1).optional(),
    monthly_budget_usd: z.number().positive().optional(),
    max_concurrent_jobs: z.number().int().min(1).optional(),
    max_pages_per_crawl: z.number().int().min(1).max(10_000).optional(),
  })
  .strict();
export type PricingTierConfig = z.infer<typeof PricingTierSchema>;

const jsonText = (v: unknown) => {
  if (typeof v !== 'string') return v;
  if (v.trim() === '') return undefined;
  try {
    return JSON.parse(v);
  } catch {
    return v; // not JSON: the schema says what was expected
  }
};

export const ConfigSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  PUBLIC_BASE_URL: optionalString,
  DATA_DIR: z.string().default('data'),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('extract-service'),
  MONGODB_URI: z.string().default('mongodb://127.0.0.1:27017/'),
  MONGODB_DB: z.string().default('extract_service'),
  SERVICE_BOOTSTRAP_API_KEY: optionalString,
  /** 32 bytes (base64 or hex) sealing tenants' provider keys at rest. npm start generates one in DATA_DIR. */
  SECRETS_KEY: optionalString,
  EXTRACT_WAIT_SECONDS: z.coerce.number().int().min(1).max(600).default(120),
  /** How often a job stream (SSE) sends its `: heartbeat` comment. */
  SSE_HEARTBEAT_MS: z.coerce.number().int().min(10).default(15_000),
  /** Job streams (SSE) one tenant may hold open at once on one API process; one more is a 429. */
  STREAMS_PER_TENANT: z.coerce.number().int().min(1).default(20),
  ALLOW_PRIVATE_ADDRESSES: bool.default(false),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  /**
   * The operator's named limit sets (GET /api/v1/pricing/tiers), as JSON: {"free": {"display_name": "Free",
   * "rate_limit_per_minute": 60, "monthly_budget_usd": 5, "max_concurrent_jobs": 2, "max_pages_per_crawl":
   * 100}, …}. A tenant gets DEFAULT_PRICING_TIER unless the operator set another (admin set-tier). Unset: one
   * tier, "default", with the service's defaults.
   */
  PRICING_TIERS: z.preprocess(
    jsonText,
    z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/), PricingTierSchema).optional(),
  ),
  DEFAULT_PRICING_TIER: optionalString,
  /**
   * Unknown API keys one client address (an IPv6 address by its /64) may send per AUTH_FAILURE_WINDOW_MS;
   * past that every request of that address needing a key is a 429 until the window ends.
   */
  AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).default(20),
  /**
   * How long an API process reuses a key's lookup (the key and its tenant) before reading them again: a key
   * deleted, or a tenant's limits changed, through another process (another API, the admin CLI) takes effect
   * here within this time; through this process, at once. 0: every request reads them.
   */
  API_KEY_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
  AUTH_FAILURE_WINDOW_MS: z.coerce.number().int().min(1000).default(60_000),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).default(20_000),
  FETCH_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(5 * 1024 * 1024),
  FETCH_MAX_REDIRECTS: z.coerce.number().int().min(0).max(20).default(5),
  CHROMIUM_PATH: z.string().default('/usr/bin/chromium'),
  /**
   * Browser pages rendering at once; more dynamic fetches wait for a page. Also how many kept pages may wait
   * for their scope's next render. 8 plain pages took ~650 MB PSS for the whole browser (docs/benchmarks.md).
   */
  BROWSER_MAX_PAGES: z.coerce.number().int().min(1).max(32).default(8),
  /** Pages one browser renders before it is replaced, to bound leaks (a new browser costs its pages anew). */
  BROWSER_RECYCLE_AFTER: z.coerce.number().int().min(1).default(500),
  /**
   * How long a kept page (one tenant's, with one site session or none) waits for its scope's next render
   * before it is closed. 0: no page is kept; every render gets a fresh context (slower: a renderer each).
   */
  BROWSER_PAGE_IDLE_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
  /**
   * After a scripted document loads, how long its scripts may keep fetching before the page is read (it is read
   * once the network is quiet for 500 ms). A page that runs no script is read once parsed.
   */
  DYNAMIC_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  DEFAULT_LLM_CHAIN: z.string().default('openai/gpt-4o-mini'),
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalString,
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: optionalString,
  /**
   * The ollama provider's endpoint. Like OPENAI_BASE_URL and ANTHROPIC_BASE_URL it is the operator's choice
   * and may be a private address. Unset, ollama goes to http://127.0.0.1:11434/v1 through the address policy
   * like any other endpoint: refused unless ALLOW_PRIVATE_ADDRESSES.
   */
  OLLAMA_BASE_URL: optionalString,
  LLM_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  LLM_MAX_CONTENT_CHARS: z.coerce.number().int().min(1000).default(120_000),
  PRICE_MARKUP: z.coerce.number().min(0).default(0),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Tracing off. On, spans go over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT when set, else to TRACES_FILE. */
  OTEL_SDK_DISABLED: bool.default(false),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString,
  OTEL_SERVICE_NAME: optionalString,
  /** JSON lines of finished spans without an OTLP endpoint; `-` writes them to stderr. Default DATA_DIR/traces.jsonl. */
  TRACES_FILE: optionalString,
  /** Waits before webhook delivery attempts 2 and 3 (ms, comma-separated); tests shorten them. */
  WEBHOOK_RETRY_DELAYS_MS: z
    .string()
    .default('60000,300000')
    .transform((v) => v.split(',').map((s) => Number(s.trim())))
    .refine((v) => v.length <= 10 && v.every((n) => Number.isInteger(n) && n >= 0), {
      message: 'must be comma-separated non-negative integers (milliseconds)',
    }),
  WORKER_MAX_ACTIVITIES: z.coerce.number().int().min(1).default(40),
  /**
   * The fraction of the worker's activity slots (and, while another tenant waits, of its browser pages) one
   * tenant may hold. A crawl page over it is deferred by its workflow instead of holding a slot.
   */
  TENANT_MAX_SHARE: z.coerce.number().gt(0).max(1).default(0.5),
  WORKER_MAX_WORKFLOW_TASKS: z.coerce.number().int().min(1).default(10),
  /**
   * On SIGTERM/SIGINT the worker stops taking tasks and lets the activities it runs finish for this long;
   * whatever is still running then is handed back to Temporal as a retryable failure and run again (an
   * extract's page, a local activity, is left 1 s more, then the worker stops and another runs it).
   * Keep it under whatever stops the process for good (npm start waits 10 s before SIGKILL).
   */
  WORKER_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(8_000),
  /**
   * Activities a workflow task may hand straight back to the worker that ran it (Temporal's eager
   * activity dispatch). Only a one-page job's single activity asks for it (workflows/policies.ts): a waited
   * analysis or map saves the task queue's round trip, while crawl pages and every other activity always go
   * through the queue, so that every worker takes a fair share of a crawl. 0 turns it off entirely.
   */
  WORKER_EAGER_ACTIVITIES: z.coerce.number().int().min(0).max(100).default(1),
  /** Threads that clean and analyse page HTML (activities/reading/html-pool), off the worker's event loop. */
  HTML_WORKERS: z.coerce.number().int().min(1).max(32).default(2),
  /** How long one page's HTML work may run in its thread; past it the thread is stopped (processing_timeout). */
  HTML_TIMEOUT_MS: z.coerce.number().int().min(50).default(15_000),
  /**
   * Learned extractors: every this-many pages a verified extractor answered, the next page of its
   * template goes to the model as a check; a failed check re-does the pages answered since the last one.
   */
  LEARNED_CHECK_EVERY: z.coerce.number().int().min(2).max(1000).default(200),
  /**
   * Days a fetched or cleaned page's stored content is kept (0: forever). The worker deletes older ones in
   * bounded batches; results, job projections and events stay.
   */
  PAGE_RETENTION_DAYS: z.coerce.number().int().min(0).default(30),
  /**
   * The API's sweeper of jobs recorded without a running workflow (the API stopped, or Temporal was
   * unreachable, between job.created and the workflow start): how often it looks, and how old such a job must
   * be before it is started from its stored request (a request still starting it is left alone).
   */
  JOB_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000),
  JOB_START_GRACE_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * Prometheus metrics (shared/metrics). GET /metrics on the API is outside /api/v1 (no tenant key); when
   * METRICS_TOKEN is set it answers only `Authorization: Bearer <METRICS_TOKEN>`.
   */
  METRICS_TOKEN: optionalString,
  /** A `tenant` label on job and page series: one series per tenant, so only for a bounded set of tenants. */
  METRICS_TENANT_LABELS: bool.default(false),
  /** The worker's own /metrics server (0: none), on WORKER_METRICS_HOST; same METRICS_TOKEN rule. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  WORKER_METRICS_HOST: z.string().default('127.0.0.1'),
  /** The Temporal SDK's own metrics (the core Runtime's Prometheus exporter) on this port (0: none). */
  TEMPORAL_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(0),
});
export type Config = z.infer<typeof ConfigSchema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  const { PRICING_TIERS: tiers, DEFAULT_PRICING_TIER: chosen } = parsed.data;
  if (chosen && !(tiers && chosen in tiers))
    throw new Error(
      `invalid configuration:\n  DEFAULT_PRICING_TIER: "${chosen}" is not a tier of PRICING_TIERS`,
    );
  return parsed.data;
}

export interface ChainEntry {
  provider: string;
  model: string;
}

/** `DEFAULT_LLM_CHAIN=openai/gpt-4o-mini,anthropic/claude-3-5-haiku-latest` → ordered entries. */
export function parseChain(value: string): ChainEntry[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const slash = entry.indexOf('/');
      if (slash <= 0 || slash === entry.length - 1)
        throw new Error(`DEFAULT_LLM_CHAIN entry "${entry}" is not provider/model`);
      return { provider: entry.slice(0, slash), model: entry.slice(slash + 1) };
    });
}
