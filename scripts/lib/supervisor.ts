// Keeps the local stack's children running for `npm start`: a child that exits on its own is started again
// after a back-off (1 s, doubling up to 30 s), each restart logged. A crash more than a minute after the
// child's previous one starts the back-off over; the fifth crash in a row each within a minute of the one
// before is a crash loop: the supervisor gives up and its owner stops everything. A child restarts only
// once the services it needs are running, so a worker waits for Temporal instead of failing against it.
import type { Child } from './processes.js';

export interface Service {
  name: string;
  /** Starts the process; resolves once it is ready for the services that need it. */
  start(): Promise<Child>;
  /** Services that must be running before this one is (re)started. */
  needs?: string[];
}

export interface SupervisorOptions {
  log(msg: string): void;
  /** Called once, on a crash loop, with the reason. The owner stops everything. */
  onGiveUp(reason: string): void;
}

/**
 * The first back-off. NPM_START_FIRST_RESTART_DELAY_MS shortens it for tests (the crash-loop test waits out
 * four back-offs); nothing else sets it.
 */
const FIRST_DELAY_MS = Number(process.env.NPM_START_FIRST_RESTART_DELAY_MS) || 1_000;
const MAX_DELAY_MS = 30_000;
/** Crashes further apart than this are not one crash loop: the back-off starts over. */
const LOOP_GAP_MS = 60_000;
/** This many crashes in a row, each within LOOP_GAP_MS of the one before, are a crash loop. */
const LOOP_CRASHES = 5;

interface Supervised {
  service: Service;
  child: Child | null;
  /** Crashes in a row each within LOOP_GAP_MS of the one before: the exponent of the back-off. */
  streak: number;
  lastCrashAt: number;
  restarts: number;
  /** A restart under way (waiting out its back-off, its dependencies, or its start). */
  restarting: Promise<void> | null;
}

export class Supervisor {
  private readonly services = new Map<string, Supervised>();
  private stopping = false;

  constructor(private readonly opts: SupervisorOptions) {}

  /** The first start: an error here is the caller's (nothing is restarted before it ran once). */
  async start(service: Service): Promise<void> {
    const entry: Supervised = {
      service,
      child: null,
      streak: 0,
      lastCrashAt: 0,
      restarts: 0,
      restarting: null,
    };
    this.services.set(service.name, entry);
    this.watch(entry, await service.start());
  }

  /** Stops the children in this order (waiting for restarts under way); none is restarted after. */
  async stop(order: string[]): Promise<void> {
    this.stopping = true;
    for (const name of order) {
      const entry = this.services.get(name);
      if (!entry) continue;
      while (entry.restarting) await entry.restarting;
      await entry.child?.stop();
    }
  }

  private watch(entry: Supervised, child: Child) {
    entry.child = child;
    const onExit = () => {
      if (entry.child !== child) return;
      entry.child = null;
      const { exitCode, signalCode } = child.proc;
      this.crashed(entry, signalCode ? `signal ${signalCode}` : `code ${exitCode}`);
    };
    if (child.proc.exitCode !== null || child.proc.signalCode !== null) onExit();
    else child.proc.once('exit', onExit);
  }

  private crashed(entry: Supervised, how: string) {
    if (this.stopping) return;
    const now = Date.now();
    const { name } = entry.service;
    entry.streak = now - entry.lastCrashAt < LOOP_GAP_MS ? entry.streak + 1 : 1;
    entry.lastCrashAt = now;
    if (entry.streak >= LOOP_CRASHES) {
      this.opts.onGiveUp(
        `${name} exited ${entry.streak} times in a row, each within ${LOOP_GAP_MS / 1000} s of the one ` +
          `before (last: ${how}): a crash loop, so npm start gives up (the reason is in ${name}'s messages above)`,
      );
      return;
    }
    const delay = Math.min(FIRST_DELAY_MS * 2 ** (entry.streak - 1), MAX_DELAY_MS);
    entry.restarts += 1;
    this.opts.log(`${name} exited (${how}); restarting in ${delay / 1000} s (restart ${entry.restarts})`);
    const restarting = this.restart(entry, delay).finally(() => {
      if (entry.restarting === restarting) entry.restarting = null;
    });
    entry.restarting = restarting;
  }

  private async restart(entry: Supervised, delay: number) {
    await sleep(delay);
    await this.dependenciesRunning(entry);
    if (this.stopping) return;
    let child: Child;
    try {
      child = await entry.service.start();
    } catch (err) {
      this.crashed(entry, (err as Error).message);
      return;
    }
    if (this.stopping) return void (await child.stop());
    this.opts.log(`${entry.service.name} restarted`);
    this.watch(entry, child);
  }

  private async dependenciesRunning(entry: Supervised) {
    const needs = (entry.service.needs ?? []).map((n) => this.services.get(n)).filter((e) => e != null);
    let said = false;
    while (!this.stopping && needs.some((e) => e.child === null)) {
      if (!said) {
        const waiting = needs.filter((e) => e.child === null).map((e) => e.service.name);
        this.opts.log(`${entry.service.name} waits for ${waiting.join(' and ')} before it restarts`);
        said = true;
      }
      await sleep(200);
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
