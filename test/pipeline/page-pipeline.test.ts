// An extract job's page through the page pipeline with in-memory ports (memory-ports.ts): fetched through
// the real fetch checks, cleaned and read in this thread, answered from structured data or a table model,
// its provenance and its result event recorded. No database, no Temporal, no worker.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ExtractPageInput } from '../../activities/extraction/extraction-types.js';
import {
  ANSWER_IN_RESULT_MAX_CHARS,
  answerInputOf,
  extractOnePage,
} from '../../activities/extraction/page-pipeline.js';
import { DEFAULT_CLEANER_CHAIN } from '../../shared/cleaners.js';
import { CategorizedError } from '../../shared/errors.js';
import type { JobEvent, PageCompletedData } from '../../shared/events.js';
import { resultFromEvent } from '../../shared/reducers/results.js';
import { normalizeSchema } from '../../shared/schema-input.js';
import {
  html,
  jsonLd,
  memoryEvents,
  memoryFetcher,
  memoryModel,
  memoryPorts,
  memorySite,
  noModelExpected,
} from './memory-ports.js';

const URL_OF = (path: string) => `https://shop.test${path}`;

const product = (name: string, price: string) =>
  jsonLd({
    '@context': 'https://schema.org',
    '@type': 'Product',
    name,
    offers: { '@type': 'Offer', price, priceCurrency: 'USD' },
  });

const SITE = {
  [URL_OF('/plain')]: html(
    '<script>var tracking = "ignore me";</script>',
    '<main><h1>Blue Widget</h1><p>Price: $19.99</p><p>Made of steel.</p></main>',
  ),
  [URL_OF('/ld')]: html(
    product('Blue Kettle', '24.50'),
    '<main><h1>Blue Kettle</h1><p>Price: $24.50</p></main>',
  ),
  [URL_OF('/ld-partial')]: html(
    product('Green Kettle', '30.00'),
    '<main><h1>Green Kettle</h1><p>Price: $30.00</p><p>Colour: Green</p></main>',
  ),
  [URL_OF('/shell')]: html(
    '<script src="/app.js"></script>',
    '<div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript>',
  ),
  [URL_OF('/busy')]: { status: 503, body: html('', '<h1>Try later</h1>') },
};

function inputFor(path: string, schema: unknown, extra: Partial<ExtractPageInput> = {}): ExtractPageInput {
  return {
    jobId: 'job_1',
    tenantId: 'ten_1',
    firstSeq: 1,
    pageId: 'page_1',
    url: URL_OF(path),
    fetchMode: 'static',
    cleanerChain: DEFAULT_CLEANER_CHAIN,
    schema: normalizeSchema(schema),
    captureDebug: false,
    page: { seq: 2, eventId: 'evt_2' },
    started: { seq: 1, eventId: 'evt_1' },
    completed: { seq: 3, eventId: 'evt_3', since: Date.now() },
    ...extra,
  };
}

const noRetry = { retry: false };

/** The page.completed event of the log, at seq 2. */
function pageEvent(log: JobEvent[]): PageCompletedData {
  const event = log.find((e) => e.seq === 2);
  assert.ok(event?.type === 'page.completed', `no page.completed in ${log.map((e) => e.type).join(', ')}`);
  return event.data;
}

describe('an extract page through the pipeline', () => {
  test('a static page: fetched, cleaned, answered by the model, recorded with job.started and job.completed', async () => {
    const site = memorySite(SITE);
    const fetcher = memoryFetcher(site);
    const { model, asked } = memoryModel({ title: 'Blue Widget', price: 19.99 });
    const events = memoryEvents();
    const ports = memoryPorts({ fetcher, model, events });
    const result = await extractOnePage(
      ports,
      inputFor('/plain', { title: 'string', price: 'number' }),
      noRetry,
    );
    assert.deepEqual(site.requests, [URL_OF('/plain')]);
    assert.deepEqual(fetcher.saved, [URL_OF('/plain')], 'the fetched page is kept');
    // The model got the cleaned page: its text as markdown, without the page's scripts.
    assert.equal(asked.length, 1);
    assert.deepEqual(asked[0]?.fields, ['title', 'price']);
    assert.match(asked[0]?.body ?? '', /# Blue Widget/);
    assert.doesNotMatch(asked[0]?.body ?? '', /ignore me|<main>/);
    assert.deepEqual(
      events.log.map((e) => [e.seq, e.type, e.event_id]),
      [
        [1, 'job.started', 'evt_1'],
        [2, 'page.completed', 'evt_2'],
        [3, 'job.completed', 'evt_3'],
      ],
    );
    const page = pageEvent(events.log);
    assert.deepEqual(page.data, { title: 'Blue Widget', price: 19.99 });
    assert.equal(page.data_source, 'model');
    assert.equal(page.fetch_mode, 'static');
    assert.equal(page.final_url, URL_OF('/plain'));
    assert.equal(page.content_type, 'text/html');
    assert.equal(page.depth, 0);
    assert.equal(page.parent_url, null);
    assert.equal(page.from_cache, undefined);
    assert.equal(page.provider, 'memory');
    assert.deepEqual(page.usage, {
      input_tokens: 100,
      output_tokens: 10,
      llm_cost_usd: 0,
      cost_usd: 0,
      is_byok: true,
    });
    assert.deepEqual(
      { in: result.inputTokens, out: result.outputTokens, provider: result.provider },
      { in: 100, out: 10, provider: 'memory' },
    );
  });

  test('structured data answering every field: no model call, 0 tokens, each value with its JSON-LD path', async () => {
    const events = memoryEvents();
    const ports = memoryPorts({ fetcher: memoryFetcher(memorySite(SITE)), model: noModelExpected, events });
    const result = await extractOnePage(ports, inputFor('/ld', { name: 'string', price: 'number' }), noRetry);
    const page = pageEvent(events.log);
    assert.deepEqual(page.data, { name: 'Blue Kettle', price: 24.5 });
    assert.equal(page.data_source, 'structured_data');
    assert.deepEqual(page.structured_fields, ['name', 'price']);
    assert.equal(page.provider, '');
    assert.equal(result.inputTokens + result.outputTokens, 0);
    assert.deepEqual(page.provenance, {
      name: { source: 'structured_data', path: 'json-ld Product name' },
      price: { source: 'structured_data', path: 'json-ld Product offers.price' },
    });
  });

  test('structured data answering part: the model is asked the rest only, answers merge as mixed', async () => {
    const events = memoryEvents();
    const { model, asked, provenance } = memoryModel(
      { colour: 'Green', name: 'WRONG: the model was not asked this' },
      { captures: true },
    );
    const ports = memoryPorts({ fetcher: memoryFetcher(memorySite(SITE)), model, events });
    const schema = { name: 'string', price: 'number', colour: 'string' };
    await extractOnePage(ports, inputFor('/ld-partial', schema, { captureDebug: true }), noRetry);
    assert.deepEqual(
      asked.map((a) => a.fields),
      [['colour']],
    );
    const page = pageEvent(events.log);
    assert.deepEqual(page.data, { name: 'Green Kettle', price: 30, colour: 'Green' });
    assert.equal(page.data_source, 'mixed');
    assert.deepEqual(page.structured_fields, ['name', 'price']);
    // Provenance: the structured values by path, the model's by whether the page shows them; the same
    // provenance goes to the answer's debug capture.
    assert.equal(page.provenance?.name?.source, 'structured_data');
    assert.equal(page.provenance?.colour?.source, 'model');
    assert.equal(page.provenance?.colour?.in_page, true);
    assert.deepEqual(provenance.get('page_1:001'), page.provenance);
  });

  test('provenance of model values: a value the page does not show is in_page false', async () => {
    const events = memoryEvents();
    const { model } = memoryModel({ title: 'Blue Widget', material: 'titanium' });
    const ports = memoryPorts({ fetcher: memoryFetcher(memorySite(SITE)), model, events });
    await extractOnePage(ports, inputFor('/plain', { title: 'string', material: 'string' }), noRetry);
    const { provenance } = pageEvent(events.log);
    assert.equal(provenance?.title?.source, 'model');
    assert.equal(provenance?.title?.in_page, true);
    assert.equal(provenance?.material?.in_page, false);
  });

  test('structured_data false: the model is asked every field, though JSON-LD holds them', async () => {
    const events = memoryEvents();
    const { model, asked } = memoryModel({ name: 'Blue Kettle', price: 24.5 });
    const ports = memoryPorts({ fetcher: memoryFetcher(memorySite(SITE)), model, events });
    const input = inputFor('/ld', { name: 'string', price: 'number' }, { structuredData: false });
    await extractOnePage(ports, input, noRetry);
    assert.deepEqual(
      asked.map((a) => a.fields),
      [['name', 'price']],
    );
    assert.equal(pageEvent(events.log).data_source, 'model');
  });

  test('fetch failures keep their category; nothing is recorded but job.started and the model is not asked', async () => {
    const cases: [string, string, boolean][] = [
      ['/missing', 'http_status', false],
      ['/busy', 'http_status', true],
      ['/shell', 'insufficient_content', false],
    ];
    for (const [path, category, retryable] of cases) {
      const events = memoryEvents();
      const ports = memoryPorts({ fetcher: memoryFetcher(memorySite(SITE)), model: noModelExpected, events });
      await assert.rejects(
        extractOnePage(ports, inputFor(path, { title: 'string' }), noRetry),
        (err: unknown) =>
          err instanceof CategorizedError && err.category === category && err.retryable === retryable,
        path,
      );
      assert.deepEqual(
        events.log.map((e) => e.type),
        ['job.started'],
        path,
      );
    }
  });

  test('the model is asked while the page is stored; a model failure is reported only once the page is kept', async () => {
    const site = memorySite(SITE);
    const steps: string[] = [];
    let store: () => void = () => undefined;
    const fetcher = memoryFetcher(site);
    const slowStore: typeof fetcher = {
      ...fetcher,
      async fetch(input) {
        const fetched = await fetcher.fetch(input);
        const saved = new Promise<void>((resolve) => {
          store = () => {
            if (!steps.includes('page stored')) steps.push('page stored');
            resolve();
          };
        });
        // A pipeline that waits for the store before asking the model finds it stored after 200 ms.
        setTimeout(() => store(), 200);
        return { ...fetched, saved };
      },
    };
    const failing = {
      ...noModelExpected,
      ask: async () => {
        steps.push('model asked');
        setTimeout(() => store(), 20);
        throw new CategorizedError('provider_error', 'the model failed');
      },
    };
    const events = memoryEvents();
    const ports = memoryPorts({ fetcher: slowStore, model: failing, events });
    await assert.rejects(
      extractOnePage(ports, inputFor('/plain', { title: 'string' }), noRetry),
      (err: unknown) => err instanceof CategorizedError && err.category === 'provider_error',
    );
    steps.push('failed');
    assert.deepEqual(steps, ['model asked', 'page stored', 'failed']);
    assert.deepEqual(
      events.log.map((e) => e.type),
      ['job.started'],
    );
  });

  /** A page run once and recorded, then run again with its completion known (`attempt` as the activity's). */
  async function runAgainAfterRecord(attempt: typeof noRetry) {
    const site = memorySite(SITE);
    const events = memoryEvents();
    const { model } = memoryModel({ title: 'Blue Widget', price: 19.99 });
    const input = inputFor('/plain', { title: 'string', price: 'number' }, { completed: undefined });
    const first = await extractOnePage(
      memoryPorts({ fetcher: memoryFetcher(site), model, events }),
      input,
      noRetry,
    );
    const again = { ...input, completed: { seq: 3, eventId: 'evt_3', since: Date.now() } };
    const ports = memoryPorts({ fetcher: memoryFetcher(site), model: noModelExpected, events });
    assert.deepEqual(await extractOnePage(ports, again, attempt), first);
    // What the earlier attempt had not written is written now, once.
    assert.deepEqual(
      events.log.map((e) => e.type),
      ['job.started', 'page.completed', 'job.completed'],
    );
    return site;
  }

  test('a retried attempt whose page was recorded: its result stands, the page is not fetched again', async () => {
    const site = await runAgainAfterRecord({ retry: true });
    assert.equal(site.requests.length, 1);
  });

  // A local activity run again on another worker starts at attempt 1 (workflows/policies.ts).
  test('a first attempt whose page an earlier run recorded (its worker died): the model is not asked again', async () => {
    await runAgainAfterRecord(noRetry);
  });

  test("the result carries the page's answer as its results row shows it, unless it is large", async () => {
    const run = async (title: string) => {
      const events = memoryEvents();
      const { model } = memoryModel({ title, price: 19.99 });
      const ports = memoryPorts({ fetcher: memoryFetcher(memorySite(SITE)), model, events });
      const input = inputFor('/plain', { title: 'string', price: 'number' });
      const result = await extractOnePage(ports, input, noRetry);
      const event = events.log.find((e) => e.seq === 2);
      assert.ok(event);
      return { result, row: resultFromEvent(event) };
    };
    const small = await run('Blue Widget');
    assert.deepEqual(small.result.answer, small.row);
    assert.deepEqual(small.result.answer?.data, { title: 'Blue Widget', price: 19.99 });
    // Past the bound the answer is recorded as always but not carried: the API reads it from the results.
    const large = await run('x'.repeat(ANSWER_IN_RESULT_MAX_CHARS));
    assert.equal(large.result.answer, undefined);
    assert.equal(
      (large.row?.data as { title?: string } | undefined)?.title?.length,
      ANSWER_IN_RESULT_MAX_CHARS,
    );
    assert.equal(large.result.provider, 'memory');
  });
});

describe('the answer input', () => {
  test('is made from the job spec and the page: an extract page and a crawl page alike', () => {
    const job = inputFor(
      '/plain',
      { title: 'string' },
      { budget: { maxTokens: 500 }, structuredData: false },
    );
    const fetched = {
      doc: {
        url: URL_OF('/final'),
        status: 200,
        headers: {},
        contentType: 'text/plain',
        body: 'x',
        bytes: 1,
      },
      mode: 'static' as const,
      fetchedAt: 'T',
      durationMs: 7,
      fromCache: true,
      saved: Promise.resolve(),
    };
    const place = { pageId: 'p9', url: URL_OF('/a'), depth: 2, parentUrl: URL_OF('/'), node: 4 };
    const input = answerInputOf(job, { ...place, jobType: 'crawl' }, fetched, 3);
    assert.deepEqual(input, {
      jobId: 'job_1',
      tenantId: 'ten_1',
      pageId: 'p9',
      url: URL_OF('/a'),
      depth: 2,
      parentUrl: URL_OF('/'),
      node: 4,
      schema: job.schema,
      fetch: {
        finalUrl: URL_OF('/final'),
        fetchMode: 'static',
        fetchedAt: 'T',
        durationMs: 7,
        fromCache: true,
        contentType: 'text/plain',
      },
      cleanDurationMs: 3,
      jobType: 'crawl',
      captureDebug: false,
      llm: undefined,
      structuredData: false,
      contentFormat: 'text',
      budget: { maxTokens: 500 },
    });
  });
});
