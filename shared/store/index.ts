// Every store over one database, built the same way by the API, the worker and the tests.
import type { Db } from 'mongodb';
import type { Config } from '../config.js';
import { SecretBox } from '../secrets.js';
import { BudgetLedger } from './budgets.js';
import { ContentStore } from './contents.js';
import { DebugCaptureStore } from './debug-captures.js';
import { EventStore } from './event-store.js';
import { JobReader } from './jobs.js';
import { LearnedExtractorStore } from './learned-extractors.js';
import { LlmSettingsStore } from './llm-settings.js';
import { MonitorStore } from './monitors.js';
import { PageStore } from './pages.js';
import { SchemaLibraryStore } from './schema-library.js';
import { SiteSessionStore } from './site-sessions.js';
import { SiteStore } from './sites.js';
import { TenantStore } from './tenants.js';
import { WebhookStore } from './webhooks.js';

export function createStores(db: Db, config: Config) {
  let box: SecretBox | undefined;
  // Built on first use, so a service without SECRETS_KEY runs and only BYOK answers that it is missing.
  const secrets = () => {
    box ??= new SecretBox(config.SECRETS_KEY);
    return box;
  };
  const contents = new ContentStore(db);
  return {
    events: new EventStore(db),
    jobs: new JobReader(db),
    tenants: new TenantStore(db, config.API_KEY_CACHE_MS),
    contents,
    pages: new PageStore(db, contents),
    llm: new LlmSettingsStore(db, secrets),
    debug: new DebugCaptureStore(db),
    webhooks: new WebhookStore(db, secrets),
    sites: new SiteStore(db),
    sessions: new SiteSessionStore(db, secrets),
    schemaLibrary: new SchemaLibraryStore(db),
    learned: new LearnedExtractorStore(db, config.LEARNED_CHECK_EVERY),
    budgets: new BudgetLedger(db),
    monitors: new MonitorStore(db),
  };
}
export type Stores = ReturnType<typeof createStores>;
