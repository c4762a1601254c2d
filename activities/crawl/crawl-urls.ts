// The URLs a crawl's pages queued, in the crawl_urls collection: one document a URL, keyed by the job and a
// hash of the URL (a keyed read; FerretDB pushes down `_id` equality only), holding the node that queued it.
import { createHash } from 'node:crypto';
import { type Db, MongoBulkWriteError } from 'mongodb';
import { COLLECTIONS } from '../../shared/store/mongo.js';
import type { SeenUrls } from './crawl-types.js';

const keyOf = (jobId: string, url: string) =>
  `${jobId}:${createHash('sha256').update(url).digest('hex').slice(0, 40)}`;

export function mongoSeenUrls(db: Db): SeenUrls {
  const urls = db.collection<{ _id: string; by: number }>(COLLECTIONS.crawlUrls);
  return {
    /** One batched insert; a duplicate key is a URL another page (or an earlier attempt) marked. */
    async mark(jobId, node, marked) {
      const before = new Set<string>();
      if (marked.length === 0) return before;
      try {
        await urls.insertMany(
          marked.map((url) => ({ _id: keyOf(jobId, url), by: node })),
          { ordered: false },
        );
      } catch (err) {
        if (!(err instanceof MongoBulkWriteError)) throw err;
        const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
        for (const e of errors) {
          if (e.code !== 11000) throw err;
          before.add(marked[e.index] as string);
        }
      }
      return before;
    },
    async markedBy(jobId, url) {
      return (await urls.findOne({ _id: keyOf(jobId, url) }))?.by ?? null;
    },
  };
}
