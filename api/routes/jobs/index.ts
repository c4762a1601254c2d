// Every route on a job, in one place: GET /jobs and /jobs/{id}, and /jobs/{id}/… — cancel, crawl-map, results,
// stream, debug, a page's screenshot, retry, re-extract and a signed download link (a job's webhook deliveries are with the webhook
// routes). Each answers only the caller's tenant's jobs: another tenant's job is a 404.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiDeps } from '../../deps.js';
import { cancelRoutes } from './cancel.js';
import { crawlMapRoutes } from './crawl-map.js';
import { debugRoutes } from './debug.js';
import { downloadLinkRoutes } from './download.js';
import { jobReadRoutes } from './read.js';
import { reextractRoutes } from './reextract.js';
import { resultRoutes } from './results.js';
import { retryRoutes } from './retry.js';
import { screenshotRoutes } from './screenshots.js';
import { streamRoutes } from './stream.js';

export const jobRoutes =
  (deps: ApiDeps): FastifyPluginAsyncZod =>
  async (app) => {
    for (const routes of [
      jobReadRoutes,
      cancelRoutes,
      crawlMapRoutes,
      resultRoutes,
      streamRoutes,
      debugRoutes,
      screenshotRoutes,
      retryRoutes,
      reextractRoutes,
      downloadLinkRoutes,
    ])
      await app.register(routes(deps));
  };
