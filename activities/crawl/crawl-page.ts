// One page of a crawl, as one activity: robots.txt, fetch, clean, extract (the same steps the extract
// workflow runs as separate activities), then link discovery. One activity per page keeps a 10,000-page
// crawl's history small and its overhead low; the page stays in memory between the steps.
import type { DiscoveredLink, FollowRules } from '../../shared/crawl/links.js';
import type { PageCompletedData } from '../../shared/events.js';
import { toJsonSchema } from '../../shared/schema-input.js';
import type { CrawlJobInput, StoredSource } from '../../shared/schemas/job-spec.js';
import { CrawlUrlStore } from '../../shared/store/crawl-urls.js';
import type { AnsweredPage } from '../../shared/store/learned-extractors.js';
import { currentActivity } from '../common/activity-context.js';
import { budgetRefusal, categorized } from '../common/failure.js';
import type { DeferredActivity } from '../common/tenant-share.js';
import { makeExtractor } from '../extraction/extract-with-model.js';
import { fetchFacts } from '../extraction/extraction-types.js';
import { validatorFor } from '../extraction/schema-validators.js';
import type { ActivityDeps } from '../fetching/deps.js';
import { makePageSource } from '../fetching/fetch-page.js';
import { robotsAllow } from '../fetching/robots.js';
import { formatOf } from '../reading/clean-content.js';
import { htmlPoolOf } from '../reading/html-pool/pool.js';
import { makeTemplateLearner } from '../reading/learned/learner.js';
import type { StructuredPlan } from '../reading/structured-data/answer.js';

/** The crawl's settings every page of it runs with, as the job's spec has them. */
type CrawlSettings = Pick<
  CrawlJobInput,
  | 'jobId'
  | 'tenantId'
  | 'fetchMode'
  | 'actions'
  | 'cleanerChain'
  | 'schema'
  | 'captureDebug'
  | 'llm'
  | 'structuredData'
  | 'learnExtractors'
  | 'siteId'
  | 'budget'
  | 'maxAgeMs'
>;

/** A page of the crawl: the crawl's settings and what is the page's own. */
export interface CrawlPageInput extends CrawlSettings {
  node: number;
  pageId: string;
  url: string;
  depth: number;
  parentUrl: string | null;
  seedUrl: string;
  rules: FollowRules;
  respectRobots: boolean;
  /** Whether to look for links at all (false at max depth, except pagination). */
  discover: { follow: boolean; next: boolean };
  /** Whether the page marks its own URL as seen (seeds); other pages were marked by their parent. */
  markSeen?: boolean;
  eventSeq: number;
  eventId: string;
  /** A page re-done by the model after its learned extractor failed a check: the result it replaces. */
  revises?: PageCompletedData['revises'];
  /** Re-extract, or a retry without a fetch: the earlier job's stored page instead of the network. */
  stored?: StoredSource;
  /** Run again alone after its run in a batch (crawl-pages.ts) failed: that run may have queued its links. */
  rerun?: boolean;
  /**
   * In a batch: the page's share of the batch's bound on its result's links (in URL characters). A page
   * that finds more answers `alone` before its model is asked, and runs again alone with the whole bound.
   */
  batchLinkChars?: number;
}

/** A page of a batch whose links are over its share of the batch's bound: it runs again alone. */
export interface AloneResult {
  outcome: 'alone';
}

/** A page to extract again, by the model (its template's learned extractor failed a later check). */
export type RedoPage = AnsweredPage;

export type CrawlPageResult =
  | {
      outcome: 'completed';
      links: { url: string; kind: 'follow' | 'next' }[];
      inputTokens: number;
      outputTokens: number;
      /** Pages to re-do (a learned extractor answered them, then failed a check on this page). */
      redo?: RedoPage[];
    }
  | { outcome: 'skipped'; category: 'robots_disallowed'; message: string }
  /** The page's model call was refused by a budget (the crawl then starts no new pages). */
  | { outcome: 'budget_exhausted'; message: string }
  | DeferredActivity;

/** How long a page waits while the first pages of its template teach its extractor (doubled each time). */
const LEARNING_WAIT_MS = 500;

export function makeCrawlPage(deps: ActivityDeps) {
  const source = makePageSource(deps);
  const { answerFromContent, recordPage, planOf } = makeExtractor(deps);
  const learner = deps.learned ? makeTemplateLearner(deps.learned, () => htmlPoolOf(deps)) : null;
  const seenSet = new CrawlUrlStore(deps.events.database());
  /** Keeps only URLs no other page of the job queued before (a retried page keeps its own). */
  const firstSeen = (input: CrawlPageInput, urls: string[]) =>
    seenSet.firstSeen(
      input.jobId,
      input.node,
      urls,
      input.rerun === true || (currentActivity()?.info.attempt ?? 1) > 1,
    );

  return {
    // The worker heartbeats for it while it runs (worker/interceptors.ts).
    /** A page alone: the whole bound on its links. */
    crawlPage: async (input: CrawlPageInput): Promise<CrawlPageResult> =>
      run({ ...input, batchLinkChars: undefined }),
    /** A page of a batch (crawl-pages.ts): `alone` when its links are over its share of the batch's bound. */
    crawlPageOfBatch: (input: CrawlPageInput): Promise<CrawlPageResult | AloneResult> => run(input),
  };

  /**
   * robots.txt, fetch, clean, extract and links, with the page kept in memory: nothing of the page is
   * stored but its result (the extract job's separate activities pass content by id instead).
   */
  function run(input: CrawlPageInput & { batchLinkChars: undefined }): Promise<CrawlPageResult>;
  function run(input: CrawlPageInput): Promise<CrawlPageResult | AloneResult>;
  async function run(input: CrawlPageInput): Promise<CrawlPageResult | AloneResult> {
    return categorized(async () => {
      const { config } = deps;
      // Seeds are seen by themselves; other pages were marked by the page that queued them.
      if (input.markSeen !== false) await firstSeen(input, [input.url]);
      // A stored page makes no request to the site, robots.txt included (it was obeyed when it was fetched).
      const stored = await source.stored(input);
      if (
        !stored &&
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
      const fetched = stored ?? (await source.fetch(input));
      const { doc } = fetched;
      const cleanStarted = Date.now();
      // A re-done page goes to the model whatever its template (its extractor failed a check).
      const learning = input.revises
        ? null
        : (learner?.pageOf({
            tenantId: input.tenantId,
            jobId: input.jobId,
            siteId: input.siteId,
            schema: input.schema,
            url: input.url,
            learn: input.learnExtractors,
          }) ?? null);
      // One task, one parse, for link discovery, cleaning and the page's template, in the HTML pool under
      // its time limit. The links are queued only once the page's result is stored.
      const templates = learning && learner ? await learner.templatesFor(learning) : undefined;
      const [{ links, cleaned, structured, template }] = await Promise.all([
        htmlPoolOf(deps).run(
          {
            kind: 'crawl-page',
            body: doc.body,
            contentType: doc.contentType,
            url: doc.url,
            chain: input.cleanerChain,
            rules: rulesFor(input),
            seedUrl: input.seedUrl,
            readStructured: input.structuredData !== false,
            ...(templates ? { learned: templates } : {}),
          },
          currentActivity()?.cancellationSignal,
        ),
        // Kept before the model is asked: a retry without a fetch finds it after a model failure.
        fetched.saved,
      ]);
      const answerInput = {
        jobId: input.jobId,
        tenantId: input.tenantId,
        pageId: input.pageId,
        url: input.url,
        depth: input.depth,
        parentUrl: input.parentUrl,
        schema: input.schema,
        fetch: fetchFacts(fetched),
        cleanDurationMs: Date.now() - cleanStarted,
        eventSeq: input.eventSeq,
        eventId: input.eventId,
        jobType: 'crawl',
        captureDebug: input.captureDebug,
        llm: input.llm,
        node: input.node,
        structuredData: input.structuredData,
        revises: input.revises,
        contentFormat: formatOf(doc.contentType, input.cleanerChain),
        ...(input.budget ? { budget: input.budget } : {}),
      };
      if (input.batchLinkChars !== undefined && linkChars(links) > input.batchLinkChars)
        return { outcome: 'alone' };
      // Structured data first; a learned extractor answers only what it leaves.
      const plan = planOf(answerInput, cleaned, structured);
      const decision =
        learning && learner && !(plan && !plan.rest)
          ? await learner.decide(learning, template, {
              doc: { body: doc.body, url: doc.url },
              pageId: input.pageId,
              answered: (fields) => answeredPage(input, plan, fields),
              valid: (name, value) => validField(input.schema, name, value),
            })
          : null;
      // Enough pages of its template are teaching it now: this one comes back after a durable timer, when
      // the extractor is likely verified.
      if (decision?.kind === 'defer') return { outcome: 'deferred', retryAfterMs: LEARNING_WAIT_MS };
      // The extractor's answer: all of the page, or the fields it holds (the model is asked the rest); a
      // check asks the model for every field.
      const learned =
        decision?.kind === 'extractor' || (decision?.kind === 'model' && !decision.check)
          ? decision.extraction
          : undefined;
      const answer = await answerFromContent(answerInput, cleaned, {
        plan,
        ...(learned ? { learned } : {}),
      }).catch(async (err: unknown) => {
        // A failed answer teaches nothing: its place among the template's learning pages is free again.
        if (learning && learner && decision) await learner.release(learning, decision, input.pageId);
        const refused = budgetRefusal(err);
        if (refused === null) throw err;
        return { refused };
      });
      if ('refused' in answer) return { outcome: 'budget_exhausted', message: answer.refused };
      const redo =
        learning && learner && decision?.kind === 'model'
          ? await learner.learn(learning, decision, { body: doc.body, url: doc.url }, answer.page.data, {
              url: input.url,
              pageId: input.pageId,
            })
          : [];
      await recordPage(answerInput, answer.page, 'deferred');
      return {
        outcome: 'completed',
        links: await unseen(input, links),
        inputTokens: answer.result.inputTokens,
        outputTokens: answer.result.outputTokens,
        ...(redo.length > 0 ? { redo } : {}),
      };
    });
  }

  /**
   * The page as a learned extractor's answer remembers it, in case a later check finds it wrong: `fields`
   * the extractor answered, the structured data's first, the model's the rest.
   */
  function answeredPage(input: CrawlPageInput, plan: StructuredPlan | null, fields: string[]): AnsweredPage {
    const fromData = new Set(plan?.mapping.answered ?? []);
    const structured = fromData.size;
    const learned = fields.filter((f) => !fromData.has(f)).length;
    const model = Math.max(0, input.schema.fields.length - structured - learned);
    const sources = [structured, learned, model].filter((n) => n > 0).length;
    return {
      node: input.node,
      url: input.url,
      depth: input.depth,
      parentUrl: input.parentUrl,
      pageId: input.pageId,
      seq: input.eventSeq,
      source: sources > 1 ? 'mixed' : 'learned_extractor',
      values: { structured_data: structured, learned_extractor: learned, model },
    };
  }

  /** The follow rules this page applies; null when it looks for no links. */
  function rulesFor(input: CrawlPageInput): FollowRules | null {
    if (!input.discover.follow && !input.discover.next) return null;
    const rules: FollowRules = {
      ...input.rules,
      follow_selector: input.discover.follow ? input.rules.follow_selector : undefined,
      follow_pattern: input.discover.follow ? input.rules.follow_pattern : undefined,
      next_selector: input.discover.next ? input.rules.next_selector : undefined,
    };
    if (!rules.follow_selector && !rules.follow_pattern && !rules.next_selector) return null;
    return rules;
  }

  /** The links no other page of the job queued before. */
  async function unseen(input: CrawlPageInput, links: DiscoveredLink[]): Promise<DiscoveredLink[]> {
    if (links.length === 0) return [];
    const fresh = await firstSeen(
      input,
      links.map((l) => l.url),
    );
    return links.filter((l) => fresh.has(l.url));
  }
}

/** Whether one field's value fits the schema (a learned value that does not is left to the model). */
function validField(schema: CrawlPageInput['schema'], name: string, value: unknown): boolean {
  const field = schema.fields.find((f) => f.name === name);
  if (!field) return false;
  return validatorFor(toJsonSchema({ ...schema, fields: [field] }))({ [name]: value }) === true;
}

/** The URL characters of a page's links, as MAX_LINK_CHARS_PER_PAGE counts them. */
function linkChars(links: readonly { url: string }[]): number {
  let chars = 0;
  for (const link of links) chars += link.url.length;
  return chars;
}
