// Model request/response captures of jobs run with capture_debug. Raw records like page
// contents (not projections): written by the model activity, listed through a per-job index, by `_id`.
import type { Db } from 'mongodb';
import type { ActionOutcome } from '../schemas/actions.js';
import type { FieldProvenance } from '../structured-data.js';
import { COLLECTIONS, retryOnDuplicate } from './mongo.js';

export interface DebugCapture {
  id: string;
  api_version: string;
  job_type: string;
  timestamp: string;
  url: string;
  is_byok: boolean;
  sequence: number;
  request: {
    content_size: number;
    fallback_position: number;
    max_tokens: number;
    prompt_size: number;
    fetch_mode: string;
    /** Page actions run before the page was read: each step's outcome. */
    actions?: ActionOutcome[];
    model: string;
    page_content: string;
    prompt: string;
    provider: string;
    schema: string;
    system_prompt: string;
    user_prompt: string;
    hints_applied: Record<string, string>;
    is_retry: boolean;
    json_mode: boolean;
    temperature: number;
  };
  response: {
    cost_usd: number;
    duration_ms: number;
    input_tokens: number;
    output_tokens: number;
    error: string;
    error_category: string;
    parse_error: string;
    raw_output: string;
    parsed_output: unknown;
    success: boolean;
    /** The successful answer's: where each value of the page's data came from. */
    provenance?: Record<string, FieldProvenance>;
  };
}

export class DebugCaptureStore {
  constructor(private readonly db: Db) {}

  /** Idempotent: the id is made from the job, page and attempt, so an activity retry overwrites its own. */
  async add(jobId: string, capture: DebugCapture): Promise<void> {
    await this.db
      .collection<DebugCapture & { _id: string }>(COLLECTIONS.debugCaptures)
      .replaceOne({ _id: capture.id }, { ...capture, job_id: jobId } as never, { upsert: true });
    await retryOnDuplicate(() =>
      this.db
        .collection<{ _id: string; ids: string[] }>(COLLECTIONS.debugIndex)
        .updateOne({ _id: jobId }, { $addToSet: { ids: capture.id } }, { upsert: true }),
    );
  }

  /** Adds the page's provenance to the capture of the answer it came from. */
  async setProvenance(captureId: string, provenance: Record<string, FieldProvenance>): Promise<void> {
    await this.db
      .collection<{ _id: string }>(COLLECTIONS.debugCaptures)
      .updateOne({ _id: captureId }, { $set: { 'response.provenance': provenance } });
  }

  async list(jobId: string): Promise<DebugCapture[]> {
    const index = await this.db
      .collection<{ _id: string; ids: string[] }>(COLLECTIONS.debugIndex)
      .findOne({ _id: jobId });
    const docs = await Promise.all(
      (index?.ids ?? []).map((id) =>
        this.db
          .collection<DebugCapture & { _id: string; job_id: string }>(COLLECTIONS.debugCaptures)
          .findOne({ _id: id }),
      ),
    );
    return docs
      .filter((d) => d !== null)
      .map(({ _id, job_id, ...capture }) => capture as DebugCapture)
      .sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.id.localeCompare(b.id))
      .map((c, i) => ({ ...c, sequence: i + 1 }));
  }
}
