// The Temporal core runtime's logger for this process: installed once, before any connection is made.
import { DefaultLogger, type LogLevel, Runtime } from '@temporalio/worker';

let installed = false;

export function installRuntime(level: string): void {
  if (installed) return;
  installed = true;
  const map: Record<string, LogLevel> = {
    trace: 'TRACE',
    debug: 'DEBUG',
    info: 'INFO',
    warn: 'WARN',
    error: 'ERROR',
    fatal: 'ERROR',
  };
  Runtime.install({ logger: new DefaultLogger(level === 'silent' ? 'ERROR' : (map[level] ?? 'INFO')) });
}
