// Runs crawl4ai_run.py, a deep crawl from the shop's first listing or a crawl of a list of URLs, and reads its
// report. Crawl4AI talks to 127.0.0.1 only: its cloud banner is off, LiteLLM uses its bundled model cost map
// (it would fetch one from GitHub), and its home folder is a fresh temporary one (its robots.txt cache too); in
// browser mode Playwright starts Debian's Chromium (venv.ts), with flags that keep it from calling home
// (crawl4ai_run.py). The CPU this process spends meanwhile (the site and the fake model) is measured from the
// script's "measuring" line to its report, so the warm-up is left out.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { playwrightBrowsersPath } from './venv.js';

/** deep: Crawl4AI discovers the pages (BFSDeepCrawlStrategy); list: it crawls the URLs it is given. */
export type PeerMode = 'deep' | 'list';

export interface Crawl4aiReport {
  crawl4ai_mode: 'http' | 'browser';
  peer_mode: PeerMode;
  pages: number;
  pages_ok: number;
  seconds: number;
  pages_per_second: number;
  cpu_ms_per_page: number;
  peak_pss_mb: number;
  errors: string[];
  records: Record<string, { title: unknown; price: unknown } | null>;
  /** Added here: CPU of this process (site, fake model) during the measured crawl. */
  bench_cpu_ms: number;
}

export async function runCrawl4ai(
  python: string,
  opts: {
    /** deep: from startUrl, maxPages pages down to maxDepth links; list: the URLs given. */
    crawl:
      | { peerMode: 'deep'; startUrl: string; maxPages: number; maxDepth: number }
      | { peerMode: 'list'; urls: string[] };
    modelBaseUrl: string;
    concurrency: number;
    warmup: number;
    mode: 'http' | 'browser';
    /** Called when the measured crawl starts (after the warm-up). */
    onMeasuring?: () => void;
  },
): Promise<Crawl4aiReport> {
  const home = mkdtempSync(join(tmpdir(), 'bench-peer-'));
  const args = [join(import.meta.dirname, 'crawl4ai_run.py'), '--peer-mode', opts.crawl.peerMode];
  if (opts.crawl.peerMode === 'list') {
    writeFileSync(join(home, 'urls.txt'), opts.crawl.urls.join('\n'));
    args.push('--urls', join(home, 'urls.txt'));
  } else {
    args.push('--start-url', opts.crawl.startUrl, '--max-pages', String(opts.crawl.maxPages));
    args.push('--max-depth', String(opts.crawl.maxDepth));
  }
  args.push('--model-base-url', opts.modelBaseUrl, '--concurrency', String(opts.concurrency));
  args.push('--warmup', String(opts.warmup), '--mode', opts.mode);
  const child = spawn(python, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      CRAWL4_AI_BASE_DIRECTORY: home,
      CRAWL4AI_NO_CLOUD_NOTICE: '1',
      LITELLM_LOCAL_MODEL_COST_MAP: 'True',
      HF_HUB_OFFLINE: '1',
      NO_COLOR: '1',
      ...(opts.mode === 'browser' ? { PLAYWRIGHT_BROWSERS_PATH: playwrightBrowsersPath() } : {}),
    },
  });
  let out = '';
  let benchCpu: NodeJS.CpuUsage | null = null;
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (!benchCpu && out.includes('measuring\n')) {
      benchCpu = process.cpuUsage();
      opts.onMeasuring?.();
    }
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const used = process.cpuUsage(benchCpu ?? undefined);
  rmSync(home, { recursive: true, force: true });
  const last = out.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !last.startsWith('{'))
    throw new Error(`crawl4ai_run.py failed (${code}): ${out.slice(-2000)}`);
  return { ...(JSON.parse(last) as Crawl4aiReport), bench_cpu_ms: (used.user + used.system) / 1000 };
}
