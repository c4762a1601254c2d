// What the API needs from the outside world, built once by main.ts (or by a test) and passed in.
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { Config } from '../shared/config.js';
import type { DebugCaptureStore } from '../shared/store/debug-captures.js';
import type { EventStore } from '../shared/store/event-store.js';
import type { JobReader } from '../shared/store/jobs.js';
import type { LearnedExtractorStore } from '../shared/store/learned-extractors.js';
import type { LlmSettingsStore } from '../shared/store/llm-settings.js';
import type { MonitorStore } from '../shared/store/monitors.js';
import type { SchemaLibraryStore } from '../shared/store/schema-library.js';
import type { SiteSessionStore } from '../shared/store/site-sessions.js';
import type { SiteStore } from '../shared/store/sites.js';
import type { TenantStore } from '../shared/store/tenants.js';
import type { WebhookStore } from '../shared/store/webhooks.js';

export interface ApiDeps {
  config: Config;
  db: Db;
  temporal: Client;
  events: EventStore;
  jobs: JobReader;
  tenants: TenantStore;
  llm: LlmSettingsStore;
  debug: DebugCaptureStore;
  webhooks: WebhookStore;
  sites: SiteStore;
  sessions: SiteSessionStore;
  schemaLibrary: SchemaLibraryStore;
  learned: LearnedExtractorStore;
  monitors: MonitorStore;
}
