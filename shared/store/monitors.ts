// Monitors, their runs and the changes they found. Every read is by a composed `_id`: a monitor by
// `<tenant>:<monitor>`, a tenant's list through one index doc, a change by `<tenant>:<monitor>:<n>` (walked
// newest first from the monitor's change counter), a run by its job id.
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { JobType } from '../temporal-names.js';
import { isDuplicateKey, retryOnDuplicate } from './mongo.js';

export const MONITOR_COLLECTIONS = {
  /** `_id` = `<tenant id>:<monitor id>`. */
  monitors: 'monitors',
  /** `_id` = tenant id; the tenant's monitor ids in creation order. */
  index: 'monitor_index',
  /** `_id` = `<tenant id>:<monitor id>:<change number, 10 digits>`; what one run found changed. */
  changes: 'monitor_changes',
  /** `_id` = job id; which monitor a run's job belongs to and what its comparison gave. */
  runs: 'monitor_runs',
} as const;

/** Changes kept per monitor: older ones are deleted as new ones come. */
export const MAX_CHANGES_KEPT = 1000;

export type MonitorOutcome = 'running' | 'baseline' | 'unchanged' | 'changed' | 'job_failed';

export interface MonitorDoc {
  _id: string;
  id: string;
  tenant_id: string;
  name: string;
  kind: JobType;
  url: string;
  site_id: string | null;
  schedule: { cron: string | null; every: string | null; timezone: string };
  paused: boolean;
  key_field: string | null;
  /** The request as given, without secrets (what GET shows). */
  request: Record<string, unknown>;
  /**
   * What each run's job is created from: its JobSpec (no secrets: they are sealed apart), read with readJobSpec
   * (monitors stored before specs had a kind stored the same fields without it).
   */
  job: { request: Record<string, unknown>; capture_debug: boolean; max_depth?: number };
  run_count: number;
  change_count: number;
  last_run: { job_id: string; started_at: string; outcome: MonitorOutcome; change_id: string | null } | null;
  baseline_job_id: string | null;
  created_at: string;
  updated_at: string;
}

export type MonitorFields = Omit<
  MonitorDoc,
  | '_id'
  | 'id'
  | 'tenant_id'
  | 'run_count'
  | 'change_count'
  | 'last_run'
  | 'baseline_job_id'
  | 'created_at'
  | 'updated_at'
>;

export interface RecordEntry {
  key: string;
  url: string;
  record: unknown;
}
export interface FieldChange {
  field: string;
  old: unknown;
  new: unknown;
}
export interface ChangeDoc {
  _id: string;
  id: string;
  tenant_id: string;
  monitor_id: string;
  job_id: string;
  previous_job_id: string;
  at: string;
  counts: { added: number; removed: number; changed: number };
  added: RecordEntry[];
  removed: RecordEntry[];
  changed: { key: string; url: string; fields: FieldChange[] }[];
  omitted: number;
}

export interface RunDoc {
  _id: string;
  tenant_id: string;
  monitor_id: string;
  /** The change number reserved for this run (set before the change is written, so a retry reuses it). */
  change_seq: number | null;
  outcome: MonitorOutcome;
}

const key = (tenantId: string, id: string) => `${tenantId}:${id}`;
const changeKey = (tenantId: string, monitorId: string, n: number) =>
  `${tenantId}:${monitorId}:${String(n).padStart(10, '0')}`;
/** Where a monitor's sealed secrets (model key, webhook destinations) are kept, as a job keeps its own. */
export const monitorSecretsId = (tenantId: string, monitorId: string) => `monitor:${tenantId}:${monitorId}`;
const PARALLEL = 16;

export class MonitorStore {
  constructor(private readonly db: Db) {}

  private get monitors() {
    return this.db.collection<MonitorDoc>(MONITOR_COLLECTIONS.monitors);
  }
  private get index() {
    return this.db.collection<{ _id: string; ids: string[] }>(MONITOR_COLLECTIONS.index);
  }
  private get changes() {
    return this.db.collection<ChangeDoc>(MONITOR_COLLECTIONS.changes);
  }
  private get runs() {
    return this.db.collection<RunDoc>(MONITOR_COLLECTIONS.runs);
  }

  static newId(): string {
    return `mon_${randomUUID().replaceAll('-', '')}`;
  }

  get(tenantId: string, id: string): Promise<MonitorDoc | null> {
    return this.monitors.findOne({ _id: key(tenantId, id) });
  }

  async count(tenantId: string): Promise<number> {
    return (await this.index.findOne({ _id: tenantId }))?.ids.length ?? 0;
  }

  async create(tenantId: string, id: string, fields: MonitorFields): Promise<MonitorDoc> {
    const now = new Date().toISOString();
    const doc: MonitorDoc = {
      _id: key(tenantId, id),
      id,
      tenant_id: tenantId,
      ...fields,
      run_count: 0,
      change_count: 0,
      last_run: null,
      baseline_job_id: null,
      created_at: now,
      updated_at: now,
    };
    // Indexed first: a crash in between leaves an id the list skips, never a monitor the list cannot see.
    await retryOnDuplicate(() =>
      this.index.updateOne({ _id: tenantId }, { $addToSet: { ids: id } }, { upsert: true }),
    );
    await this.monitors.insertOne(doc);
    return doc;
  }

  /** Sets the given fields; a changed job request makes the next completed run a new baseline. */
  async update(
    tenantId: string,
    id: string,
    fields: Partial<MonitorFields>,
    resetBaseline: boolean,
  ): Promise<MonitorDoc | null> {
    return this.monitors.findOneAndUpdate(
      { _id: key(tenantId, id) },
      {
        $set: {
          ...fields,
          ...(resetBaseline ? { baseline_job_id: null } : {}),
          updated_at: new Date().toISOString(),
        },
      },
      { returnDocument: 'after' },
    );
  }

  /** Deletes the monitor and the changes it kept. */
  async delete(tenantId: string, id: string): Promise<boolean> {
    const doc = await this.get(tenantId, id);
    if (!doc) return false;
    await this.monitors.deleteOne({ _id: doc._id });
    await this.index.updateOne({ _id: tenantId }, { $pull: { ids: id } });
    const first = Math.max(1, doc.change_count - MAX_CHANGES_KEPT + 1);
    for (let n = doc.change_count; n >= first; n -= PARALLEL) {
      const batch = Array.from({ length: Math.min(PARALLEL, n - first + 1) }, (_, i) => n - i);
      await Promise.all(batch.map((k) => this.changes.deleteOne({ _id: changeKey(tenantId, id, k) })));
    }
    return true;
  }

  /** Newest first. */
  async list(tenantId: string, page: { limit: number; offset: number }) {
    const ids = [...((await this.index.findOne({ _id: tenantId }))?.ids ?? [])].reverse();
    const docs = await Promise.all(
      ids.slice(page.offset, page.offset + page.limit).map((id) => this.get(tenantId, id)),
    );
    return { monitors: docs.filter((d): d is MonitorDoc => d !== null), total: ids.length };
  }

  /** A run's job was created: counted once per job (the run record's `_id` is the job id). */
  async runStarted(doc: MonitorDoc, jobId: string): Promise<void> {
    const run: RunDoc = {
      _id: jobId,
      tenant_id: doc.tenant_id,
      monitor_id: doc.id,
      change_seq: null,
      outcome: 'running',
    };
    const inserted = await this.runs.insertOne(run).then(
      () => true,
      (err) => {
        if (isDuplicateKey(err)) return false;
        throw err;
      },
    );
    if (!inserted) return;
    const startedAt = new Date().toISOString();
    await this.monitors.updateOne(
      { _id: doc._id },
      {
        $inc: { run_count: 1 },
        $set: { last_run: { job_id: jobId, started_at: startedAt, outcome: 'running', change_id: null } },
      },
    );
  }

  getRun(jobId: string): Promise<RunDoc | null> {
    return this.runs.findOne({ _id: jobId });
  }

  /** The change number of this run: reserved once, so a retried comparison writes the same change. */
  async reserveChange(doc: MonitorDoc, jobId: string): Promise<number> {
    const run = await this.getRun(jobId);
    if (run?.change_seq) return run.change_seq;
    const after = await this.monitors.findOneAndUpdate(
      { _id: doc._id },
      { $inc: { change_count: 1 } },
      { returnDocument: 'after' },
    );
    const n = after?.change_count ?? doc.change_count + 1;
    await this.runs.updateOne({ _id: jobId }, { $set: { change_seq: n } });
    return n;
  }

  /** Writes a change (replacing one written by an earlier try) and drops the oldest beyond the kept number. */
  async putChange(change: Omit<ChangeDoc, '_id' | 'id'>, n: number): Promise<ChangeDoc> {
    const _id = changeKey(change.tenant_id, change.monitor_id, n);
    const doc: ChangeDoc = { _id, id: changeId(change.monitor_id, n), ...change };
    await this.changes.replaceOne({ _id }, doc, { upsert: true });
    if (n > MAX_CHANGES_KEPT) {
      await this.changes.deleteOne({
        _id: changeKey(change.tenant_id, change.monitor_id, n - MAX_CHANGES_KEPT),
      });
    }
    return doc;
  }

  async getChange(tenantId: string, monitorId: string, n: number): Promise<ChangeDoc | null> {
    return this.changes.findOne({ _id: changeKey(tenantId, monitorId, n) });
  }

  /** Records how the run ended; a completed run becomes the baseline the next one is compared with. */
  async runEnded(doc: MonitorDoc, jobId: string, outcome: MonitorOutcome, changeSeq: number | null) {
    await this.runs.updateOne({ _id: jobId }, { $set: { outcome } });
    const changeIdOrNull = changeSeq === null ? null : changeId(doc.id, changeSeq);
    await this.monitors.updateOne(
      { _id: doc._id },
      {
        $set: {
          ...(outcome === 'job_failed' ? {} : { baseline_job_id: jobId }),
          ...(doc.last_run?.job_id === jobId
            ? { last_run: { ...doc.last_run, outcome, change_id: changeIdOrNull } }
            : {}),
        },
      },
    );
  }

  /** The monitor's changes, newest first, walking its change numbers down (ones deleted or never written skipped). */
  async listChanges(doc: MonitorDoc, page: { limit: number; offset: number }) {
    const out: ChangeDoc[] = [];
    let skipped = 0;
    const last = Math.max(1, doc.change_count - MAX_CHANGES_KEPT + 1);
    for (let n = doc.change_count; n >= last && out.length < page.limit; n -= PARALLEL) {
      const batch = Array.from({ length: Math.min(PARALLEL, n - last + 1) }, (_, i) => n - i);
      const docs = await Promise.all(batch.map((k) => this.getChange(doc.tenant_id, doc.id, k)));
      for (const c of docs) {
        if (!c) continue;
        if (skipped < page.offset) skipped++;
        else if (out.length < page.limit) out.push(c);
      }
    }
    return { changes: out, total: Math.min(doc.change_count, MAX_CHANGES_KEPT) };
  }
}

export const changeId = (monitorId: string, n: number) => `chg_${monitorId}_${String(n).padStart(10, '0')}`;
