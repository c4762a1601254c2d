// The side-by-side table of bench:peer, as markdown.

export interface Side {
  name: string;
  pages: number;
  /** Of its pages, those ours crawled too. */
  samePages: number;
  seconds: number;
  /** CPU (ms) of the run by group: the crawler's processes, and the bench process serving site and model. */
  cpuMs: { crawler: number; 'site + model': number };
  peakPssMb: number;
  correct: number;
  modelCalls: number;
}

export function sideRow(side: Side) {
  const perPage = (ms: number) => Number((ms / Math.max(1, side.pages)).toFixed(1));
  return {
    side: side.name,
    pages: side.pages,
    pages_also_crawled_by_ours: side.samePages,
    pages_per_second: Number((side.pages / side.seconds).toFixed(1)),
    cpu_ms_per_page: perPage(side.cpuMs.crawler + side.cpuMs['site + model']),
    cpu_ms_per_page_crawler: perPage(side.cpuMs.crawler),
    cpu_ms_per_page_site_and_model: perPage(side.cpuMs['site + model']),
    peak_pss_mb: side.peakPssMb,
    correct: side.correct,
    model_calls: side.modelCalls,
    model_calls_per_page: Number((side.modelCalls / Math.max(1, side.pages)).toFixed(2)),
  };
}

export function table(date: string, load: { before: number[]; after: number[] }, sides: Side[]): string {
  const head = [
    `bench:peer ${date}, load average ${load.before.join(' ')} before, ${load.after.join(' ')} after`,
    '',
    '| crawler | pages crawled (of them ours crawled) | pages/s | CPU per page, all processes (crawler + site and model) | peak memory (PSS) | extracted correctly | model calls (a page) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  const rows = sides
    .map(sideRow)
    .map(
      (r) =>
        `| ${r.side} | ${r.pages} (${r.pages_also_crawled_by_ours}) | ${r.pages_per_second} | ${r.cpu_ms_per_page} ms (${r.cpu_ms_per_page_crawler} + ${r.cpu_ms_per_page_site_and_model}) | ${r.peak_pss_mb} MB | ${r.correct} / ${r.pages} | ${r.model_calls} (${r.model_calls_per_page}) |`,
    );
  return [...head, ...rows].join('\n');
}
