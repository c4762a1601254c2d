// Every workflow the worker runs; the bundler starts from this file.

export { analyzePageWorkflow } from './analyze-page.js';
export { crawlWorkflow } from './crawl.js';
export { extractPageWorkflow } from './extract-page.js';
export { mapWorkflow } from './map.js';
export { monitorRunWorkflow } from './monitor.js';
export { webhookDeliveryWorkflow } from './webhook-delivery.js';
