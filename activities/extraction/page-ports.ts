// The page pipeline's ports as the worker has them: its page store and fetch modes, its HTML pool, its
// chain of models and its event store (tests build in-memory ones instead).
import type { ActivityDeps } from '../fetching/deps.js';
import { makePageSource } from '../fetching/fetch-page.js';
import { makeModel } from './extract-with-model.js';
import type { PagePorts } from './extraction-types.js';

export function pagePorts(deps: ActivityDeps): PagePorts {
  const { config, events, html } = deps;
  return { config, events, fetcher: makePageSource(deps), reader: html, model: makeModel(deps) };
}
