// A crawl's progress from its stream's status events: a bar redrawn in place on a terminal (plain ANSI:
// carriage return and erase-line), or a plain line at most once a second when stderr is a file or a pipe.
import type { JobStreamEvent } from '../../typescript/src/index.js';

type Status = Extract<JobStreamEvent, { event: 'status' }>['data'];
type Complete = Extract<JobStreamEvent, { event: 'complete' }>['data'];

export interface ProgressOptions {
  stream: NodeJS.WritableStream;
  tty: boolean;
  /** The crawl's max_pages, when known: the bar's end. */
  maxPages?: number;
  now?: () => number;
}

const BAR_WIDTH = 24;
const SPINNER = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
const number = new Intl.NumberFormat('en-US');
const usd = (n: number) => `$${n.toFixed(n < 1 ? 4 : 2)}`;
const seconds = (ms: number) =>
  ms < 60_000
    ? `${(ms / 1000).toFixed(1)}s`
    : `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;

export class Progress {
  private status: Status | undefined;
  private readonly started: number;
  private first: { at: number; pages: number } | undefined;
  private lastPlain = 0;
  private frame = 0;
  private drawn = false;
  /** The spinner's place once the job ended: ✔ completed, ✖ failed or cancelled. */
  private mark: string | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly opts: ProgressOptions) {
    this.now = opts.now ?? Date.now;
    this.started = this.now();
    // On a terminal the bar is redrawn every 250 ms even without news: elapsed time and spinner move.
    if (opts.tty) this.timer = setInterval(() => this.draw(), 250).unref();
  }

  private get finished() {
    return (this.status?.page_count ?? 0) + (this.status?.failed_count ?? 0);
  }

  /** Pages per second since the first status seen (a job watched midway is not credited its past). */
  private rate(): number {
    if (!this.first) return 0;
    const elapsed = (this.now() - this.first.at) / 1000;
    return elapsed > 0.5 ? (this.finished - this.first.pages) / elapsed : 0;
  }

  line(): string {
    const s = this.status;
    const done = s?.page_count ?? 0;
    const failed = s?.failed_count ?? 0;
    const queued = s?.urls_queued ?? 0;
    const tokens = (s?.token_usage_input ?? 0) + (s?.token_usage_output ?? 0);
    const total = Math.max(
      this.finished,
      Math.min(this.opts.maxPages ?? Infinity, this.finished + queued),
      1,
    );
    const parts = [
      `${done} done`,
      `${queued} queued`,
      `${failed} failed`,
      `${number.format(tokens)} tokens`,
      usd(s?.cost_usd ?? 0),
      `${this.rate().toFixed(1)} pages/s`,
      seconds(this.now() - this.started),
    ];
    if (!this.opts.tty) return `progress: ${parts.join(', ')}`;
    const filled = Math.round((this.finished / total) * BAR_WIDTH);
    const bar = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`;
    const spin = this.mark ?? SPINNER[this.frame++ % SPINNER.length];
    return `${spin} [${bar}] ${this.finished}/${total} pages · ${parts.join(' · ')}`;
  }

  /** One terminal row: a wrapped line could not be erased by the next redraw. */
  private fit(line: string): string {
    const columns = (this.opts.stream as { columns?: number }).columns ?? 0;
    return columns > 10 ? line.slice(0, columns - 1) : line;
  }

  private draw() {
    if (!this.opts.tty || !this.status) return;
    this.opts.stream.write(`\r\x1b[2K${this.fit(this.line())}`);
    this.drawn = true;
  }

  private clear() {
    if (this.drawn) this.opts.stream.write('\r\x1b[2K');
    this.drawn = false;
  }

  update(status: Status): void {
    const firstSeen = this.status === undefined;
    this.status = status;
    if (firstSeen) this.first = { at: this.now(), pages: this.finished };
    if (this.opts.tty) this.draw();
    else if (this.now() - this.lastPlain >= 1000) {
      this.lastPlain = this.now();
      this.opts.stream.write(`${this.line()}\n`);
    }
  }

  /** A page failure, printed above the bar. */
  failure(url: string, category: string, message: string): void {
    this.clear();
    this.opts.stream.write(`failed: ${url} (${category}: ${message})\n`);
    this.draw();
  }

  /** The final summary; stops redrawing. */
  finish(complete: Complete): void {
    if (this.timer) clearInterval(this.timer);
    if (this.opts.tty && this.status) {
      this.status = { ...this.status, ...complete, urls_queued: 0 };
      this.mark = complete.status === 'completed' ? '✔' : '✖';
      this.clear();
      this.opts.stream.write(`${this.fit(this.line())}\n`);
    }
    const tokens = (this.status?.token_usage_input ?? 0) + (this.status?.token_usage_output ?? 0);
    const summary =
      `${complete.status}: ${complete.page_count} pages, ${complete.failed_count} failed, ` +
      `${number.format(tokens)} tokens, ${usd(complete.cost_usd)} in ${seconds(this.now() - this.started)}` +
      (complete.budget_exhausted ? ' (budget exhausted)' : '') +
      (complete.error_message && complete.status !== 'completed' ? ` — ${complete.error_message}` : '');
    this.opts.stream.write(`${summary}\n`);
  }

  /** Stops redrawing, leaving the last state on screen (the job goes on without us). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.drawn) this.opts.stream.write('\n');
    this.drawn = false;
  }
}
