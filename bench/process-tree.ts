// The worker's Chromium, seen from /proc: CPU and memory of the browser process and its renderers (and its
// zygote, GPU and utility processes). They are the worker's descendants, found by parent pid on each sample.
// Renderers come and go (one per browser context), so every process's own CPU (utime + stime) is sampled
// every `intervalMs` and kept after it exits (what a process used in its last interval is missed: a few ms
// of a renderer closing).
import { readdirSync, readFileSync } from 'node:fs';
import { ownCpuMs, statFields } from './proc-stat.js';

export type ChromiumRole = 'browser' | 'renderers' | 'other';

interface Proc {
  pid: number;
  ppid: number;
  /** Own CPU (ms). */
  own: number;
  /** Start time (clock ticks since boot): with the pid, tells a reused pid apart. */
  start: string;
}

function readProc(pid: number): Proc | null {
  const f = statFields(pid);
  return f ? { pid, ppid: Number(f[1]), own: ownCpuMs(f), start: f[19] ?? '' } : null;
}

function roleOf(pid: number): ChromiumRole | null {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!/chrom/i.test(cmd.split('\0')[0] ?? '')) return null;
    if (!cmd.includes('--type=')) return 'browser';
    return /--type=(renderer|zygote)/.test(cmd) ? 'renderers' : 'other';
  } catch {
    return null;
  }
}

function pssKb(pid: number): { pss: number; rss: number } {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return {
      pss: Number(/^Pss:\s+(\d+)/m.exec(text)?.[1] ?? 0),
      rss: Number(/^Rss:\s+(\d+)/m.exec(text)?.[1] ?? 0),
    };
  } catch {
    return { pss: 0, rss: 0 };
  }
}

export class ChromiumSampler {
  private readonly seen = new Map<string, { role: ChromiumRole; own: number }>();
  private readonly roles = new Map<string, ChromiumRole>();
  private timer: NodeJS.Timeout | undefined;
  private sweeps = 0;
  /** Peak memory of the Chromium tree since the last resetPeaks() (MB): PSS shares pages fairly, RSS does not. */
  peakPssMb = 0;
  peakRssMb = 0;
  peakProcesses = 0;

  constructor(
    private readonly rootPid: number,
    private readonly intervalMs = 200,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.sample(), this.intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  resetPeaks(): void {
    this.peakPssMb = 0;
    this.peakRssMb = 0;
    this.peakProcesses = 0;
  }

  /** Samples now; returns the CPU (ms) per role of every Chromium process seen so far (an exited one: its last sample). */
  sample(): Record<ChromiumRole, number> {
    const procs = this.descendants();
    const memory = this.sweeps++ % 5 === 0; // smaps_rollup costs more: once a second
    let pss = 0;
    let rss = 0;
    let count = 0;
    for (const p of procs) {
      const key = `${p.pid}:${p.start}`;
      // Not cached until it is Chromium: /usr/bin/chromium is a shell script that execs it in the same process.
      const role = this.roles.get(key) ?? roleOf(p.pid);
      if (role) this.roles.set(key, role);
      if (!role) continue;
      count++;
      this.seen.set(key, { role, own: p.own });
      if (memory) {
        const m = pssKb(p.pid);
        pss += m.pss;
        rss += m.rss;
      }
    }
    if (memory) {
      this.peakPssMb = Math.max(this.peakPssMb, Math.round(pss / 1024));
      this.peakRssMb = Math.max(this.peakRssMb, Math.round(rss / 1024));
    }
    this.peakProcesses = Math.max(this.peakProcesses, count);
    const out = { browser: 0, renderers: 0, other: 0 };
    for (const s of this.seen.values()) out[s.role] += s.own;
    return out;
  }

  /** The root and every process below it, by parent pid. */
  private descendants(): Proc[] {
    const byParent = new Map<number, Proc[]>();
    let root: Proc | null = null;
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const p = readProc(Number(name));
      if (!p) continue;
      if (p.pid === this.rootPid) root = p;
      const siblings = byParent.get(p.ppid) ?? [];
      siblings.push(p);
      byParent.set(p.ppid, siblings);
    }
    if (!root) return [];
    const out: Proc[] = [root];
    for (let i = 0; i < out.length; i++) out.push(...(byParent.get((out[i] as Proc).pid) ?? []));
    return out;
  }
}

/** This process's children and their descendants (pid → parent pid), from /proc. */
function descendantsOf(rootPid: number): Map<number, number> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const proc = readProc(Number(entry));
    if (proc) parents.set(proc.pid, proc.ppid);
  }
  const out = new Map<number, number>();
  let added = true;
  while (added) {
    added = false;
    for (const [pid, ppid] of parents)
      if (!out.has(pid) && (ppid === rootPid || out.has(ppid))) {
        out.set(pid, ppid);
        added = true;
      }
  }
  return out;
}

/**
 * The whole stack's proportional memory (PSS, MB) by part: this process (the bench's API, site and fake model),
 * the worker with everything under it (its HTML threads are threads; its Chromium and document readers are
 * children), FerretDB and the Temporal server. PSS counts a page shared by several processes once in all.
 */
export function stackPssMb(workerPid: number): Record<string, number> {
  const parts: Record<string, number> = {
    bench: pssKb(process.pid).pss,
    worker: 0,
    ferretdb: 0,
    temporal: 0,
  };
  const tree = descendantsOf(process.pid);
  const underWorker = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined; p = tree.get(p)) if (p === workerPid) return true;
    return false;
  };
  for (const pid of tree.keys()) {
    let name = 'other';
    if (underWorker(pid)) name = 'worker';
    else {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (cmd.includes('ferretdb')) name = 'ferretdb';
        else if (cmd.includes('temporal')) name = 'temporal';
      } catch {
        continue;
      }
    }
    parts[name] = (parts[name] ?? 0) + pssKb(pid).pss;
  }
  return Object.fromEntries(Object.entries(parts).map(([k, kb]) => [k, Math.round(kb / 1024)]));
}
