// Throwaway: an idle worker's memory after start-up.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestService } from '../test/support/service.js';
import { spawnBenchWorker } from './worker-process.js';

const svc = await startTestService({ worker: false, env: { LOG_LEVEL: 'silent', HTML_WORKERS: process.env.HW ?? '2' } });
const { worker, polling } = spawnBenchWorker(svc.config, 10);
await polling;
for (const wait of [2000, 8000]) {
  await sleep(wait);
  const status = readFileSync(`/proc/${worker.pid}/status`, 'utf8');
  const pick = (k: string) => /(\d+) kB/.exec(status.split('\n').find((l) => l.startsWith(k)) ?? '')?.[1];
  console.log(JSON.stringify({ rss: pick('VmRSS'), anon: pick('RssAnon'), file: pick('RssFile'), threads: pick('Threads') }));
}
const smaps = readFileSync(`/proc/${worker.pid}/smaps`, 'utf8');
const byName = new Map<string, number>();
let name = '';
for (const line of smaps.split('\n')) {
  const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
  if (head) { name = head[1] || '[anon]'; continue; }
  const rss = /^Rss:\s+(\d+) kB/.exec(line);
  if (rss) byName.set(name, (byName.get(name) ?? 0) + Number(rss[1]));
}
console.log([...byName].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([n, kb]) => `${Math.round(kb / 1024)} MB ${n}`).join('\n'));
worker.kill('SIGTERM');
await svc.close();
process.exit(0);
