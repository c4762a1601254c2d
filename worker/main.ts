// Worker entry point: runs until SIGINT/SIGTERM, then drains and exits.
import { Runtime } from '@temporalio/worker';
import { loadConfig } from '../shared/config.js';
import { ContentStore } from '../shared/store/contents.js';
import { CrawlUrlStore } from '../shared/store/crawl-urls.js';
import { Leases } from '../shared/store/leases.js';
import { startTracing } from '../shared/telemetry/tracing.js';
import { buildWorker } from './build.js';
import { startContentRetention, startSeenSetSweep } from './retention.js';

const config = loadConfig();
const tracing = startTracing(config, { serviceName: 'extract-service-worker' });
const worker = await buildWorker(config, { tracing });
Runtime.instance().logger.info('worker polling', {
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  temporalAddress: config.TEMPORAL_ADDRESS,
  tracing: tracing ? (config.OTEL_EXPORTER_OTLP_ENDPOINT ? 'otlp' : 'file') : 'off',
  metrics: worker.metricsServer ? `${config.WORKER_METRICS_HOST}:${worker.metricsServer.port}` : 'off',
  temporalMetrics: config.TEMPORAL_METRICS_PORT
    ? `${config.WORKER_METRICS_HOST}:${config.TEMPORAL_METRICS_PORT}`
    : 'off',
});
const stopRetention = startContentRetention(
  new ContentStore(worker.mongo.db),
  config.PAGE_RETENTION_DAYS,
  Runtime.instance().logger,
  new Leases(worker.mongo.db),
);
const stopSeenSets = startSeenSetSweep(
  new CrawlUrlStore(worker.mongo.db),
  Runtime.instance().logger,
  new Leases(worker.mongo.db),
);
await worker.run();
stopRetention();
stopSeenSets();
await worker.shutdown();
await tracing?.shutdown();
