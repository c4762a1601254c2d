// The Temporal core runtime's logger for this process, installed once before any connection is made: one JSON
// object a line in pino's shape (level number, time, msg), core's own logs forwarded into it, secrets redacted.
// Lines about a job carry jobId, workflowId and tenantId: the SDK's activity and workflow attributes plus the
// job interceptors' (worker/interceptors.ts); the few lines the SDK writes before the interceptors run get the
// tenant remembered from earlier lines of the same job.
import { hostname } from 'node:os';
import { DefaultLogger, type LogEntry, type LogLevel, Runtime } from '@temporalio/worker';
import { jobIdOf } from '../shared/telemetry/job-context.js';
import { redactValue, scrubSecrets } from '../shared/telemetry/redact.js';

let installed = false;

const LEVELS: Record<string, LogLevel> = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  fatal: 'ERROR',
  silent: 'ERROR',
};
const PINO_LEVELS: Record<LogLevel, number> = { TRACE: 10, DEBUG: 20, INFO: 30, WARN: 40, ERROR: 50 };

export interface LogDestination {
  write(line: string): unknown;
}

/** Tenants of recently seen jobs, for lines that name the job but not the tenant. Bounded. */
class JobTenants {
  private readonly tenants = new Map<string, string>();

  fill(record: Record<string, unknown>): void {
    if (typeof record.workflowId === 'string') record.jobId ??= jobIdOf(record.workflowId);
    const { jobId, tenantId } = record;
    if (typeof jobId !== 'string') return;
    if (typeof tenantId === 'string') {
      if (this.tenants.size >= 10_000) this.tenants.delete(this.tenants.keys().next().value as string);
      this.tenants.set(jobId, tenantId);
    } else {
      const known = this.tenants.get(jobId);
      if (known) record.tenantId = known;
    }
  }
}

/** A log call must never throw: an unserializable record still gives a line, without its attributes. */
function serialize(record: Record<string, unknown>): string {
  try {
    return JSON.stringify(record);
  } catch (err) {
    const { level, time, msg, workflowId, jobId, tenantId } = record;
    return JSON.stringify({ level, time, msg, workflowId, jobId, tenantId, logError: String(err) });
  }
}

/** Writes each entry as one redacted JSON line. */
export function jsonLogFunction(destination: LogDestination): (entry: LogEntry) => void {
  const tenants = new JobTenants();
  const base = { pid: process.pid, hostname: hostname() };
  return (entry) => {
    const record: Record<string, unknown> = {
      level: PINO_LEVELS[entry.level],
      time: Number(entry.timestampNanos / 1_000_000n),
      ...base,
      ...(redactValue(entry.meta ?? {}) as Record<string, unknown>),
      msg: entry.message,
    };
    delete record.taskToken; // long, and a capability to complete the activity: not for logs
    tenants.fill(record);
    destination.write(`${scrubSecrets(serialize(record))}\n`);
  };
}

/**
 * First call wins (the runtime is process-wide); `destination` defaults to stderr. With `metricsAddress`
 * (`host:port`, TEMPORAL_METRICS_PORT) the core SDK serves its own Prometheus metrics there (`temporal_*`:
 * task slots, poll latencies, schedule-to-start, sticky cache), with _total counters and durations in seconds.
 */
export function installRuntime(
  level: string,
  destination: LogDestination = process.stderr,
  metricsAddress?: string,
): void {
  if (installed) return;
  installed = true;
  const logLevel = LEVELS[level] ?? 'INFO';
  Runtime.install({
    logger: new DefaultLogger(logLevel, jsonLogFunction(destination)),
    telemetryOptions: {
      logging: { filter: { core: logLevel === 'ERROR' ? 'ERROR' : 'WARN' }, forward: {} },
      ...(metricsAddress
        ? {
            metrics: {
              prometheus: {
                bindAddress: metricsAddress,
                countersTotalSuffix: true,
                useSecondsForDurations: true,
              },
            },
          }
        : {}),
    },
  });
}
