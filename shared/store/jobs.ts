// Reads of the `jobs` and `results` projections, always scoped to one tenant.
import type { Db } from 'mongodb';
import type { JobView } from '../reducers/job.js';
import type { ResultView } from '../reducers/results.js';
import { COLLECTIONS } from './mongo.js';

type JobDoc = JobView & { _id: string };
type ResultDoc = ResultView & { _id: string };

export class JobReader {
  constructor(private readonly db: Db) {}

  private get jobs() {
    return this.db.collection<JobDoc>(COLLECTIONS.jobs);
  }

  async get(tenantId: string, jobId: string): Promise<JobView | null> {
    const doc = await this.jobs.findOne({ _id: jobId, tenant_id: tenantId });
    return doc ? strip(doc) : null;
  }

  async list(tenantId: string, limit: number, offset: number): Promise<JobView[]> {
    const docs = await this.jobs
      .find({ tenant_id: tenantId })
      .sort({ created_at: -1, _id: -1 })
      .skip(offset)
      .limit(limit)
      .toArray();
    return docs.map(strip);
  }

  async findByIdempotencyKey(tenantId: string, key: string): Promise<JobView | null> {
    const doc = await this.jobs.findOne({ tenant_id: tenantId, idempotency_key: key });
    return doc ? strip(doc) : null;
  }

  /** Number of the tenant's pending jobs created before this one (0 when running or finished). */
  async queuePosition(job: JobView): Promise<number> {
    if (job.status !== 'pending') return 0;
    return this.jobs.countDocuments({
      tenant_id: job.tenant_id,
      status: 'pending',
      created_at: { $lt: job.created_at },
    });
  }

  async results(jobId: string): Promise<ResultView[]> {
    const docs = await this.db
      .collection<ResultDoc>(COLLECTIONS.results)
      .find({ job_id: jobId })
      .sort({ seq: 1 })
      .toArray();
    return docs.map(strip);
  }
}

function strip<T extends { _id: string }>(doc: T): Omit<T, '_id'> {
  const { _id, ...rest } = doc;
  return rest;
}
