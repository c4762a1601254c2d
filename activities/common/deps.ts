// The config and the stores every activity may read. The engines that fetch and read pages join them in
// ActivityDeps (fetching/deps.ts), which the worker builds once and passes to createActivities.
import type { Config } from '../../shared/config.js';
import type { BudgetLedger } from '../../shared/store/budgets.js';
import type { ContentStore } from '../../shared/store/contents.js';
import type { DebugCaptureStore } from '../../shared/store/debug-captures.js';
import type { EventStore } from '../../shared/store/event-store.js';
import type { JobReader } from '../../shared/store/jobs.js';
import type { LearnedExtractorStore } from '../../shared/store/learned-extractors.js';
import type { LlmSettingsStore } from '../../shared/store/llm-settings.js';
import type { MonitorStore } from '../../shared/store/monitors.js';
import type { PageStore } from '../../shared/store/pages.js';
import type { SiteSessionStore } from '../../shared/store/site-sessions.js';
import type { TenantStore } from '../../shared/store/tenants.js';
import type { WebhookStore } from '../../shared/store/webhooks.js';

export interface StoreDeps {
  config: Config;
  events: EventStore;
  contents: ContentStore;
  /** Every fetched page (cache, re-extract, retry from stored content); without it pages are not kept. */
  pages?: PageStore;
  /** Tenants' model keys and chains (BYOK); without it only the operator's chain is used. */
  llm?: LlmSettingsStore;
  /** Where capture_debug stores model requests and responses. */
  debug?: DebugCaptureStore;
  /** Webhook destinations and deliveries; without it webhook deliveries fail. */
  webhooks?: WebhookStore;
  /** Job projections, read to build webhook bodies. */
  jobs?: JobReader;
  /** Learned extractors' templates; without it crawls never learn (every page goes to the model). */
  learned?: LearnedExtractorStore;
  /** The budget ledger: without it no budget is enforced (and no spend recorded). */
  budgets?: BudgetLedger;
  /** Tenants, read for their monthly budget before each model call. */
  tenants?: TenantStore;
  /** Monitors: their runs' jobs and changes; without it monitor runs fail. */
  monitors?: MonitorStore;
  /** Stored sites' sessions (cookies, headers, login recipes); without it a site crawl fetches logged out. */
  sessions?: SiteSessionStore;
}
