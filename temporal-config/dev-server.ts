// Settings of the embedded Temporal dev server (scripts/lib/infra.ts). A production cluster is configured
// by its operators; these only make the local server behave like one for this service.
export const DEV_SERVER_NAMESPACE = 'default';

/** Passed as --dynamic-config-value; values are JSON. */
export const DEV_SERVER_DYNAMIC_CONFIG: Record<string, unknown> = {
  // Workflow ids are `<type>-job_<32 hex>`; keep room for longer ids of child workflows.
  'limit.maxIDLength': 255,
  // Same history limits as a default cluster, so continue-as-new is exercised as in production.
  'limit.historyCount.suggestContinueAsNew': 4096,
  // A workflow task that schedules activities on its own task queue gets them back in the same reply when
  // the worker has free slots (the SDK asks by default): no trip through matching, no activity poll.
  // Crawl pages: Temporal CPU per page 9.1 → 7.6 ms.
  'system.enableActivityEagerExecution': true,
  // The dev server's default forces a search-attribute read from SQLite on every use, so attributes made
  // at run time show at once. Ours are all made at start-up (--search-attribute), so the cache is enough.
  'system.forceSearchAttributesCacheRefreshOnRead': false,
  // History reads its transfer queue (the tasks that hand a new workflow task to matching: after a start,
  // an activity's completion, a signal) at most 20 times a second per shard by default, so each of those
  // waited ~25 ms on average before a worker saw it. A bare start-and-return workflow took 49 ms here,
  // one with an activity 100 ms; with 1000: 12 and 19 ms. Reads still follow new tasks, not a clock.
  'history.transferProcessorMaxPollRPS': 1000,
  // A task queue has 4 partitions by default. A workflow task written to a partition none of the few
  // pollers was waiting on sat in its backlog ~2 s (1–2% of bench:temporal-floor's start-and-return
  // workflows at c1). One partition is enough for one server: no stall, and extracts at c10 +7% (27.1–27.7/s).
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
};
