// CPU time (ms) of the embedded servers this bench process started (FerretDB and the Temporal dev server,
// its children), read from /proc: with the bench's own CPU, where a job's cost lies across processes.
import { readdirSync, readFileSync } from 'node:fs';
import { ownCpuMs, statFields } from './proc-stat.js';

/** CPU time (ms) of one process, from /proc (0 when it is gone). */
export function processCpuMs(pid: number): number {
  const fields = statFields(pid);
  return fields ? ownCpuMs(fields) : 0;
}

export function serverCpuMs(): { ferretdb: number; temporal: number } {
  const out = { ferretdb: 0, temporal: 0 };
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const name = cmd.includes('ferretdb')
        ? 'ferretdb'
        : cmd.includes('temporal') && cmd.includes('start-dev')
          ? 'temporal'
          : null;
      if (!name) continue;
      const fields = statFields(Number(pid));
      // Only this run's servers, not those of other runs on the machine.
      if (!fields || Number(fields[1]) !== process.pid) continue;
      out[name] += ownCpuMs(fields);
    } catch {
      // gone
    }
  }
  return out;
}

/** CPU (ms) of this process (API, worker, fixture site, fake model) and of its servers since `before`. */
export function cpuSince(before: CpuSample): Record<string, number> {
  const now = sampleCpu();
  return {
    'bench process (API, worker, site, model)': now.own - before.own,
    ferretdb: now.ferretdb - before.ferretdb,
    temporal: now.temporal - before.temporal,
  };
}

export interface CpuSample {
  own: number;
  ferretdb: number;
  temporal: number;
}

export function sampleCpu(): CpuSample {
  const own = process.cpuUsage();
  return { own: (own.user + own.system) / 1000, ...serverCpuMs() };
}
