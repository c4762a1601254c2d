// Page content travels between activities by reference: stored here, passed through workflows as an id.

import type { Db } from 'mongodb';
import type { ContentFormat } from '../cleaners.js';
import type { StructuredItem } from '../structured-data.js';
import { COLLECTIONS } from './mongo.js';

export interface ContentDoc {
  _id: string;
  job_id: string;
  kind: 'raw' | 'cleaned';
  url: string;
  final_url: string;
  content_type: string;
  status_code: number;
  body: string;
  /** Cleaned pages: the raw page's structured data, when the job reads it. */
  structured?: StructuredItem[];
  /** Cleaned pages: the format the cleaner chain produced (the prompt names it). */
  format?: ContentFormat;
  created_at: string;
}

export class ContentStore {
  constructor(private readonly db: Db) {}

  private get col() {
    return this.db.collection<ContentDoc>(COLLECTIONS.contents);
  }

  /** Idempotent: the id is made by the workflow, so an activity retry overwrites its own earlier write. */
  async put(doc: ContentDoc): Promise<void> {
    await this.col.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }

  async get(id: string): Promise<ContentDoc> {
    const doc = await this.col.findOne({ _id: id });
    if (!doc) throw new Error(`content ${id} not found`);
    return doc;
  }

  async deleteForJob(jobId: string): Promise<void> {
    await this.col.deleteMany({ job_id: jobId });
  }
}
