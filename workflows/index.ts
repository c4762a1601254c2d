// Every workflow the worker runs; the bundler starts from this file.
export { extractWorkflow } from './extract.js';
