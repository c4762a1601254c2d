// Process trees seen from /proc: the CPU and memory of a process and its descendants, for bench:peer.
import { readdirSync, readFileSync } from 'node:fs';
import { statFields, TICK_MS } from '../proc-stat.js';

/** `root` and every process below it, found by parent pid. */
export function treePids(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const ppid = Number(statFields(Number(name))?.[1] ?? -1);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const pids = [root];
  for (let i = 0; i < pids.length; i++) pids.push(...(children.get(pids[i] ?? -1) ?? []));
  return pids;
}

/** CPU (ms) of the processes, each with the children it has reaped (cutime + cstime). */
export function cpuMs(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    const f = statFields(pid);
    if (f) total += [11, 12, 13, 14].reduce((sum, i) => sum + Number(f[i]) * TICK_MS, 0);
  }
  return total;
}

/** Memory (MB) of the processes as PSS: pages they share (Chromium's, V8's) are split, not counted twice. */
export function pssMb(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}

/** The highest PSS of `pids()` seen, sampled every 250 ms until stop(). */
export function samplePeakPss(pids: () => number[]): { stop(): number } {
  let peak = pssMb(pids());
  const timer = setInterval(() => {
    peak = Math.max(peak, pssMb(pids()));
  }, 250);
  return {
    stop() {
      clearInterval(timer);
      return Math.round(Math.max(peak, pssMb(pids())));
    },
  };
}
