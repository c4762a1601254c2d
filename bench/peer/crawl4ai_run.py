"""Crawl4AI's side of `npm run bench:peer`: crawls the shop with Crawl4AI and an LLM extraction aimed at the
bench's fake model, then prints one JSON report (pages/s, CPU per page of this process tree, peak memory,
each page's extracted record).

  python crawl4ai_run.py --peer-mode deep --start-url URL --max-pages N --max-depth D --model-base-url URL
                         [--concurrency 10] [--warmup 20] [--mode http|browser]
  python crawl4ai_run.py --peer-mode list --urls FILE --model-base-url URL [...]

deep: Crawl4AI finds the pages itself, a breadth-first deep crawl (BFSDeepCrawlStrategy) from the start URL
that follows only the shop's /list/ and /item/ links (a URLPatternFilter) down to max_depth, max_pages pages,
robots.txt read. Its levels go through arun_many's own dispatcher (MemoryAdaptiveDispatcher): semaphore_count
sets its concurrency, and mean_delay and max_range, its per-host delay between requests (0.1-0.4 s by
default), are 0 as on our side, which waits between requests only when asked. The warm-up is a deep crawl of
--warmup pages. list: arun_many over the given URLs with a SemaphoreDispatcher; it discovers no links.

CPU and memory come from /proc: this process and every descendant (Chromium in browser mode), with the CPU of
children already reaped (cutime + cstime). The crawl before the measured one warms up imports and connections.
"""

import argparse
import asyncio
import json
import os
import re
import threading
import time

from crawl4ai import (
    AsyncWebCrawler,
    BFSDeepCrawlStrategy,
    BrowserConfig,
    CacheMode,
    CrawlerRunConfig,
    FilterChain,
    HTTPCrawlerConfig,
    LLMConfig,
    LLMExtractionStrategy,
    SemaphoreDispatcher,
    URLPatternFilter,
)
from crawl4ai.async_crawler_strategy import AsyncHTTPCrawlerStrategy

# The same schema as our side: { title: string, price: number }.
SCHEMA = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "price": {"type": ["number", "null"]}},
    "required": ["title", "price"],
}
# No calls home (updates, sync, metrics, DNS over HTTPS): the bench talks to 127.0.0.1 only.
CHROMIUM_FLAGS = [
    "--no-sandbox", "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
    "--disable-domain-reliability", "--disable-breakpad", "--no-pings", "--metrics-recording-only",
    "--disable-features=DnsOverHttps,OptimizationHints,Translate,MediaRouter,AutofillServerCommunication",
    # What still looks a name up (accounts.google.com, update.googleapis.com) finds none: the pages are 127.0.0.1.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")


def stat_fields(pid):
    """The fields of /proc/<pid>/stat after the command name (state is field 0, the parent 1), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def tree_pids(root):
    """The root pid and all its descendants, from each process's parent in /proc."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = stat_fields(name)
            if fields:
                parents[int(name)] = int(fields[1])
    pids, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in pids]
        pids.update(children)
        frontier.extend(children)
    return pids


def tree_cpu_ms(root):
    """CPU (user + system) of the live tree, plus what its reaped children used."""
    total = 0.0
    for pid in tree_pids(root):
        fields = stat_fields(pid)
        # utime, stime, cutime, cstime are fields 11..14.
        if fields:
            total += sum(int(x) for x in fields[11:15]) * TICK_MS
    return total


def tree_pss_mb(root):
    """Memory of the tree: PSS, which splits pages shared between processes (Chromium's) fairly."""
    total_kb = 0
    for pid in tree_pids(root):
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                match = re.search(r"^Pss:\s+(\d+)", f.read(), re.M)
        except OSError:
            continue
        total_kb += int(match.group(1)) if match else 0
    return total_kb / 1024


class PeakSampler:
    """Samples the tree's PSS every 200 ms in a thread; `peak_mb` is the highest sum seen."""

    def __init__(self, root):
        self.root, self.peak_mb, self._stop = root, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while True:
            self.peak_mb = max(self.peak_mb, tree_pss_mb(self.root))
            if self._stop.wait(0.2):
                return

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def read_record(result):
    """The first extracted block as {title, price}, or None when the crawl or the extraction failed."""
    if not result.success or not result.extracted_content:
        return None
    try:
        blocks = json.loads(result.extracted_content)
    except ValueError:
        return None
    block = blocks[0] if isinstance(blocks, list) and blocks else blocks
    if not isinstance(block, dict) or block.get("error"):
        return None
    return {"title": block.get("title"), "price": block.get("price")}


def by_url(results):
    errors = [f"{r.url}: {r.error_message or r.extracted_content}"[:300] for r in results if read_record(r) is None]
    return {r.url: read_record(r) for r in results}, errors


async def crawl_list(crawler, urls, run_config, concurrency):
    dispatcher = SemaphoreDispatcher(semaphore_count=concurrency, max_session_permit=concurrency)
    return by_url(await crawler.arun_many(urls, config=run_config, dispatcher=dispatcher))


async def crawl_deep(crawler, start_url, run_config, concurrency, max_pages, max_depth):
    """A breadth-first deep crawl from start_url, on the shop's listing and item pages only."""
    strategy = BFSDeepCrawlStrategy(
        max_depth=max_depth,
        max_pages=max_pages,
        filter_chain=FilterChain([URLPatternFilter(patterns=["*/list/*", "*/item/*"])]),
    )
    config = run_config.clone(
        deep_crawl_strategy=strategy,
        semaphore_count=concurrency,
        mean_delay=0,
        max_range=0,
        check_robots_txt=True,
    )
    return by_url(await crawler.arun(start_url, config=config))


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--peer-mode", choices=["deep", "list"], default="deep")
    parser.add_argument("--urls")
    parser.add_argument("--start-url")
    parser.add_argument("--max-pages", type=int, default=500)
    parser.add_argument("--max-depth", type=int, default=25)
    parser.add_argument("--model-base-url", required=True)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--mode", choices=["http", "browser"], default="http")
    args = parser.parse_args()
    if args.peer_mode == "list":
        with open(args.urls) as f:
            urls = [line.strip() for line in f if line.strip()]

        async def crawl(crawler, run_config, pages):
            return await crawl_list(crawler, urls[:pages], run_config, args.concurrency)
    else:
        if not args.start_url:
            parser.error("--peer-mode deep needs --start-url")

        async def crawl(crawler, run_config, pages):
            return await crawl_deep(crawler, args.start_url, run_config, args.concurrency, pages, args.max_depth)

    measured_pages = len(urls) if args.peer_mode == "list" else args.max_pages

    extraction = LLMExtractionStrategy(
        llm_config=LLMConfig(provider="openai/fake-model", api_token="fake-key", base_url=args.model_base_url),
        schema=SCHEMA,
        extraction_type="schema",
        instruction="Extract the page's title and price.",
        apply_chunking=False,
        force_json_response=True,
        # Structured output, as one would ask of OpenAI: the schema goes in response_format too.
        extra_args={"response_format": {"type": "json_schema", "json_schema": {"name": "page", "schema": SCHEMA}}},
    )
    run_config = CrawlerRunConfig(cache_mode=CacheMode.BYPASS, extraction_strategy=extraction, verbose=False)
    if args.mode == "http":
        strategy = AsyncHTTPCrawlerStrategy(browser_config=HTTPCrawlerConfig())
        crawler = AsyncWebCrawler(crawler_strategy=strategy)
    else:
        # Playwright launches the Chromium it finds under PLAYWRIGHT_BROWSERS_PATH: there, Debian's.
        browser = BrowserConfig(headless=True, extra_args=CHROMIUM_FLAGS, verbose=False)
        crawler = AsyncWebCrawler(config=browser)

    me = os.getpid()
    async with crawler:
        if args.warmup > 0:
            await crawl(crawler, run_config, args.warmup)
        print("measuring", flush=True)
        cpu_before = tree_cpu_ms(me)
        with PeakSampler(me) as sampler:
            started = time.perf_counter()
            records, errors = await crawl(crawler, run_config, measured_pages)
            seconds = time.perf_counter() - started
        cpu_ms = tree_cpu_ms(me) - cpu_before

    pages = len(records)
    report = {
        "crawl4ai_mode": args.mode,
        "peer_mode": args.peer_mode,
        "pages": pages,
        "pages_ok": sum(1 for r in records.values() if r is not None),
        "seconds": round(seconds, 2),
        "pages_per_second": round(pages / seconds, 1),
        "cpu_ms_per_page": round(cpu_ms / max(1, pages), 1),
        "peak_pss_mb": round(sampler.peak_mb),
        "errors": errors[:5],
        "records": records,
    }
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main())
