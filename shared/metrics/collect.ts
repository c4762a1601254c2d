// Gauges read at scrape time (a pool's size, a visibility count) rather than kept up to date.
import type { Gauge } from 'prom-client';

/** prom-client awaits a metric's collect() before reading it; this sets one on a gauge built elsewhere. */
export function onCollect<T extends string>(gauge: Gauge<T>, collect: () => void | Promise<void>): void {
  (gauge as unknown as { collect?: () => void | Promise<void> }).collect = collect;
}
