"""Crawl4AI's side of `npm run bench:peer`: crawls the given URLs with Crawl4AI and an LLM extraction aimed at
the bench's fake model, then prints one JSON report (pages/s, CPU per page of this process tree, peak memory,
each page's extracted record).

  python crawl4ai_run.py --urls FILE --model-base-url URL [--concurrency 10] [--warmup 20]
                         [--mode http|browser]

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
    BrowserConfig,
    CacheMode,
    CrawlerRunConfig,
    HTTPCrawlerConfig,
    LLMConfig,
    LLMExtractionStrategy,
    SemaphoreDispatcher,
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


async def crawl(crawler, urls, run_config, concurrency):
    dispatcher = SemaphoreDispatcher(semaphore_count=concurrency, max_session_permit=concurrency)
    results = await crawler.arun_many(urls, config=run_config, dispatcher=dispatcher)
    errors = [f"{r.url}: {r.error_message or r.extracted_content}"[:300] for r in results if read_record(r) is None]
    return {r.url: read_record(r) for r in results}, errors


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--urls", required=True)
    parser.add_argument("--model-base-url", required=True)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--mode", choices=["http", "browser"], default="http")
    args = parser.parse_args()
    with open(args.urls) as f:
        urls = [line.strip() for line in f if line.strip()]

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
            await crawl(crawler, urls[: args.warmup], run_config, args.concurrency)
        print("measuring", flush=True)
        cpu_before = tree_cpu_ms(me)
        with PeakSampler(me) as sampler:
            started = time.perf_counter()
            records, errors = await crawl(crawler, urls, run_config, args.concurrency)
            seconds = time.perf_counter() - started
        cpu_ms = tree_cpu_ms(me) - cpu_before

    pages = len(records)
    report = {
        "crawl4ai_mode": args.mode,
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
