// Worker entry point: runs until SIGINT/SIGTERM, then drains and exits.
import { loadConfig } from '../shared/config.js';
import { buildWorker } from './build.js';

const config = loadConfig();
const worker = await buildWorker(config);
process.stderr.write(
  `worker polling task queue "${config.TEMPORAL_TASK_QUEUE}" on ${config.TEMPORAL_ADDRESS}\n`,
);
await worker.run();
await worker.shutdown();
