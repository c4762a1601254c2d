// Extract benchmark: N extractions through the real API, worker, Temporal and FerretDB, with the fake model
// at zero latency, so the numbers are the service's own overhead.
//   npm run bench:extract -- [--requests 200] [--concurrency 10]
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { html, startFixtureSite } from '../test/support/fixture-site.js';
import { startTestService } from '../test/support/service.js';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '200' }, concurrency: { type: 'string', default: '10' } },
});
const total = Number(values.requests);
const concurrency = Number(values.concurrency);

const svc = await startTestService({ env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' } });
const site = await startFixtureSite();
site.route(
  '/p',
  html('Item', `<h1>Item</h1><p>Price: 10</p><p>${'Some text about the item. '.repeat(40)}</p>`),
);

const latencies: number[] = [];
let failures = 0;
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < total) {
      next++;
      const t0 = performance.now();
      const res = await svc.app.inject({
        method: 'POST',
        url: '/api/v1/extract',
        headers: svc.auth(),
        payload: { url: `${site.url}/p`, schema: { title: 'string', price: 'number' } },
      });
      latencies.push(performance.now() - t0);
      if (res.statusCode !== 200) {
        failures++;
        if (failures <= 3) process.stderr.write(`failed: ${res.statusCode} ${res.body.slice(0, 300)}\n`);
      } else if (process.env.BENCH_TRACE) {
        const jobId = res.json().job_id as string;
        const events = await svc.deps.events.list(jobId);
        const t0 = Date.parse(events[0]?.at ?? '');
        const page = events.find((e) => e.type === 'page.completed');
        const d = page?.type === 'page.completed' ? page.data : null;
        process.stderr.write(
          `${events.map((e) => `${e.type}+${Date.parse(e.at) - t0}`).join(' ')} fetch=${d?.fetch_duration_ms} clean=${d?.clean_duration_ms} llm=${d?.extract_duration_ms}\n`,
        );
      }
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0);
const report = {
  requests: total,
  concurrency,
  failures,
  seconds: Number(seconds.toFixed(2)),
  extracts_per_second: Number((total / seconds).toFixed(1)),
  latency_ms: { p50: pct(50), p90: pct(90), p99: pct(99), max: Math.round(latencies.at(-1) ?? 0) },
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
mkdirSync('bench/results', { recursive: true });
writeFileSync(
  `bench/results/extract-${new Date().toISOString().replaceAll(':', '-')}.json`,
  JSON.stringify(report),
);
await site.close();
await svc.close();
process.exit(0);
