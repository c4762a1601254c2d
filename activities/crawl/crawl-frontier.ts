// A crawl's queued pages kept outside its workflow history: when a crawl continues as new with more pages
// queued than fit well in one payload, it stores them here in chunks (each well under Temporal's payload
// limits) and loads them back one chunk at a time as it needs them. Writes are idempotent upserts by `_id`.
import { COLLECTIONS } from '../../shared/store/mongo.js';
import type { StoreDeps } from '../common/deps.js';

export interface QueuedCrawlPage {
  node: number;
  url: string;
  depth: number;
  parentUrl: string | null;
}

interface FrontierChunk {
  _id: string;
  pages: QueuedCrawlPage[];
}

const chunkId = (jobId: string, chunk: number) => `${jobId}:${chunk}`;

export function makeCrawlFrontier(deps: StoreDeps) {
  const chunks = () => deps.events.database().collection<FrontierChunk>(COLLECTIONS.crawlFrontier);
  return {
    async storeFrontierChunk(input: {
      jobId: string;
      chunk: number;
      pages: QueuedCrawlPage[];
    }): Promise<void> {
      await chunks().replaceOne(
        { _id: chunkId(input.jobId, input.chunk) },
        { pages: input.pages },
        { upsert: true },
      );
    },
    async loadFrontierChunk(input: { jobId: string; chunk: number }): Promise<QueuedCrawlPage[]> {
      const doc = await chunks().findOne({ _id: chunkId(input.jobId, input.chunk) });
      if (!doc) throw new Error(`frontier chunk ${input.chunk} of job ${input.jobId} is missing`);
      return doc.pages;
    },
    /** Chunks 0..count-1 of the job, once it no longer needs them. */
    async dropFrontier(input: { jobId: string; count: number }): Promise<void> {
      for (let chunk = 0; chunk < input.count; chunk++)
        await chunks().deleteOne({ _id: chunkId(input.jobId, chunk) });
    },
  };
}
