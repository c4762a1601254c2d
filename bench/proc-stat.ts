// One process's /proc/<pid>/stat, as the benches read it for CPU figures.
import { readFileSync } from 'node:fs';

export const TICK_MS = 10; // USER_HZ = 100 on Linux

/**
 * The fields after the command name (which may hold spaces and parentheses), so that index 1 is the parent
 * pid, 11–14 utime, stime, cutime and cstime in clock ticks, 19 the start time; null when the process is gone.
 */
export function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  } catch {
    return null;
  }
}

/** A process's own CPU (user + system, ms) from its stat fields. */
export function ownCpuMs(fields: readonly string[]): number {
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}
