// One page of a crawl, as one activity: robots.txt, fetch, clean, extract (the same steps the extract
// workflow runs as separate activities), then link discovery. One activity per page keeps a 10,000-page
// crawl's history small and its overhead low; content still passes between the steps by id.
import { createHash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { discoverLinks, type FollowRules } from '../shared/crawl/links.js';
import { CategorizedError } from '../shared/errors.js';
import { COLLECTIONS, isDuplicateKey } from '../shared/store/mongo.js';
import type { CleanerStep } from './clean-content.js';
import { makeCleanContent } from './clean-content.js';
import type { ActivityDeps } from './deps.js';
import { type ExtractWithModelInput, makeExtractWithModel } from './extract-with-model.js';
import { categorized } from './failure.js';
import { makeFetchPage } from './fetch-page.js';
import type { JobLlmConfig } from './llm/chain.js';
import { robotsAllow } from './robots.js';

export interface CrawlPageInput {
  jobId: string;
  tenantId: string;
  node: number;
  pageId: string;
  url: string;
  depth: number;
  parentUrl: string | null;
  seedUrl: string;
  fetchMode: 'auto' | 'static' | 'dynamic';
  cleanerChain: CleanerStep[];
  schema: ExtractWithModelInput['schema'];
  captureDebug: boolean;
  llm?: JobLlmConfig;
  rules: FollowRules;
  respectRobots: boolean;
  /** Whether to look for links at all (false at max depth, except pagination). */
  discover: { follow: boolean; next: boolean };
  /** Ids made by the workflow, so a retried attempt overwrites its own writes. */
  rawId: string;
  cleanId: string;
  eventSeq: number;
  eventId: string;
}

export type CrawlPageResult =
  | {
      outcome: 'completed';
      links: { url: string; kind: 'follow' | 'next' }[];
      inputTokens: number;
      outputTokens: number;
    }
  | { outcome: 'skipped'; category: 'robots_disallowed'; message: string };

export function makeCrawlPage(deps: ActivityDeps) {
  const fetchPage = makeFetchPage(deps);
  const cleanContent = makeCleanContent(deps);
  const extractWithModel = makeExtractWithModel(deps);
  const seenSet = deps.events.database().collection<{ _id: string; by: number }>(COLLECTIONS.crawlUrls);

  /** Keeps only URLs no other page of the job queued before; a retry of this page keeps its own. */
  async function firstSeen(jobId: string, node: number, urls: string[]): Promise<Set<string>> {
    const fresh = new Set<string>();
    for (const url of urls) {
      const _id = `${jobId}:${createHash('sha256').update(url).digest('hex').slice(0, 40)}`;
      try {
        await seenSet.insertOne({ _id, by: node });
        fresh.add(url);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        if ((await seenSet.findOne({ _id }))?.by === node) fresh.add(url);
      }
    }
    return fresh;
  }

  return async function crawlPage(input: CrawlPageInput): Promise<CrawlPageResult> {
    // Heartbeats tell Temporal this worker is alive; a page whose worker died is retried elsewhere.
    const beat = setInterval(() => heartbeat(), 5_000);
    try {
      return await run(input);
    } finally {
      clearInterval(beat);
    }
  };

  function heartbeat() {
    try {
      Context.current().heartbeat();
    } catch {
      // not running inside an activity (direct calls in tests)
    }
  }

  async function run(input: CrawlPageInput): Promise<CrawlPageResult> {
    return categorized(async () => {
      const { config } = deps;
      await firstSeen(input.jobId, input.node, [input.url]); // the seed is seen by itself
      if (
        input.respectRobots &&
        !(await robotsAllow(input.url, {
          allowPrivate: config.ALLOW_PRIVATE_ADDRESSES,
          timeoutMs: config.FETCH_TIMEOUT_MS,
        }))
      ) {
        return {
          outcome: 'skipped',
          category: 'robots_disallowed',
          message: 'robots.txt disallows this URL',
        };
      }
      const fetched = await fetchPage({
        jobId: input.jobId,
        url: input.url,
        fetchMode: input.fetchMode,
        contentId: input.rawId,
      });
      const cleaned = await cleanContent({
        jobId: input.jobId,
        sourceId: fetched.contentId,
        targetId: input.cleanId,
        chain: input.cleanerChain,
      });
      const answer = await extractWithModel({
        jobId: input.jobId,
        tenantId: input.tenantId,
        pageId: input.pageId,
        contentId: cleaned.contentId,
        url: input.url,
        depth: input.depth,
        parentUrl: input.parentUrl,
        schema: input.schema,
        fetch: fetched,
        cleanDurationMs: cleaned.durationMs,
        eventSeq: input.eventSeq,
        eventId: input.eventId,
        jobType: 'crawl',
        captureDebug: input.captureDebug,
        llm: input.llm,
        node: input.node,
      });
      let links: { url: string; kind: 'follow' | 'next' }[] = [];
      if (input.discover.follow || input.discover.next) {
        const raw = await deps.contents.get(fetched.contentId);
        const rules: FollowRules = {
          ...input.rules,
          follow_selector: input.discover.follow ? input.rules.follow_selector : undefined,
          follow_pattern: input.discover.follow ? input.rules.follow_pattern : undefined,
          next_selector: input.discover.next ? input.rules.next_selector : undefined,
        };
        if (rules.follow_selector || rules.follow_pattern || rules.next_selector) {
          try {
            links = discoverLinks(raw.body, fetched.finalUrl, rules, input.seedUrl);
          } catch (err) {
            throw new CategorizedError(
              'invalid_input',
              `a follow rule is not usable: ${(err as Error).message}`,
            );
          }
          const fresh = await firstSeen(
            input.jobId,
            input.node,
            links.map((l) => l.url),
          );
          links = links.filter((l) => fresh.has(l.url));
        }
      }
      return {
        outcome: 'completed',
        links,
        inputTokens: answer.inputTokens,
        outputTokens: answer.outputTokens,
      };
    });
  }
}
