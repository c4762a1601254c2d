// Screenshots of a job's pages: stored as page contents (contents.ts), so the same retention
// (PAGE_RETENTION_DAYS) deletes them, under an `_id` made of the job, the page and the screenshot's number:
// an activity's retry overwrites its own, and a read is one `_id` lookup. Only their sizes go through
// workflow history (the page's metadata.actions).
import { CategorizedError } from '../errors.js';
import type { ContentStore } from './contents.js';

export const screenshotId = (jobId: string, pageId: string, index: number) =>
  `screenshot:${jobId}:${pageId}:${index}`;

export interface NewScreenshot {
  jobId: string;
  pageId: string;
  index: number;
  url: string;
  png: Buffer;
  takenAt: string;
}

export class ScreenshotStore {
  constructor(private readonly contents: ContentStore) {}

  async put(shot: NewScreenshot): Promise<void> {
    await this.contents.put({
      _id: screenshotId(shot.jobId, shot.pageId, shot.index),
      job_id: shot.jobId,
      kind: 'screenshot',
      url: shot.url,
      final_url: shot.url,
      content_type: 'image/png',
      status_code: 200,
      body: shot.png.toString('base64'),
      created_at: shot.takenAt,
    });
  }

  /**
   * The PNG, or null when the page has no such screenshot or it expired. The caller has checked that the job
   * is the tenant's: the `_id` holds the job id, so no other job's screenshot is ever read.
   */
  async get(jobId: string, pageId: string, index: number): Promise<Buffer | null> {
    try {
      const doc = await this.contents.get(screenshotId(jobId, pageId, index));
      if (doc.kind !== 'screenshot' || doc.job_id !== jobId) return null;
      return Buffer.from(doc.body, 'base64');
    } catch (err) {
      if (err instanceof CategorizedError && err.category === 'content_expired') return null;
      throw err;
    }
  }
}
