// One trace from the API request through the workflow start, the workflow and its activities to the outbound
// page fetch and model call, on the real service with an in-memory exporter.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { loadConfig } from '../../../shared/config.js';
import { startTracing, type Tracing } from '../../../shared/telemetry/tracing.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let svc: TestService;
let site: FixtureSite;

let logText = '';
const pageRequestHeaders: Record<string, string | string[] | undefined>[] = [];

before(async () => {
  tracing = startTracing(loadConfig({}), { serviceName: 'trace-test', exporter }) as Tracing;
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logText += chunk.toString();
      done();
    },
  });
  svc = await startTestService({ tracing, logStream, env: { LOG_LEVEL: 'info' } });
  site = await startFixtureSite();
  const page = html(
    'Blue Kettle',
    '<main><h1>Blue Kettle</h1><p>Price: 24.5</p><p>A kettle that boils water.</p></main>',
  );
  site.route('/product', (req, res) => {
    pageRequestHeaders.push(req.headers);
    res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
});
after(async () => {
  await site?.close();
  await svc?.close();
  await tracing?.shutdown();
});

async function spansUntil(done: (spans: ReadableSpan[]) => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const spans = exporter.getFinishedSpans();
    if (done(spans)) return spans;
    if (Date.now() > deadline) throw new Error(`spans so far: ${spans.map((s) => s.name).join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('an extract is one trace: request, workflow start, workflow, activities, fetch and model call', async () => {
  exporter.reset();
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { url: `${site.url}/product?session=s3cr3t-t0ken`, schema: { name: 'string', price: 'number' } },
  });
  assert.equal(res.statusCode, 200, res.body);
  const jobId = res.json().job_id as string;

  const request = (s: ReadableSpan) =>
    s.name === 'POST /api/v1/extract' && s.attributes['fastify.root'] !== undefined;
  const named = (name: string) => (s: ReadableSpan) => s.name === name;
  const outbound = (prefix: string) => (s: ReadableSpan) =>
    String(s.attributes['url.full']).startsWith(prefix);
  const wanted = {
    request,
    start: named('StartWorkflow:extractPageWorkflow'),
    run: named('RunWorkflow:extractPageWorkflow'),
    // One activity fetches, cleans and extracts the page, and records its events.
    extractPage: named('RunActivity:extractPage'),
    pageFetch: outbound(`${site.url}/product`),
    modelCall: outbound(svc.llm.openaiBaseUrl),
  };
  const spans = await spansUntil((all) => Object.values(wanted).every((match) => all.some(match)));
  const handler = spans.find((s) => s.name === 'handler POST /api/v1/extract');
  const found = Object.fromEntries(
    Object.entries(wanted).map(([key, match]) => [key, spans.find(match) as ReadableSpan]),
  );
  const traceId = found.request?.spanContext().traceId;
  for (const [key, span] of Object.entries(found)) {
    assert.equal(span.spanContext().traceId, traceId, `${key} (${span.name}) is in the request's trace`);
  }
  // The workflow start runs in the route handler's span, a child of the request's.
  assert.equal(handler?.parentSpanId, found.request?.spanContext().spanId);
  assert.equal(found.start?.parentSpanId, handler?.spanContext().spanId);
  // Activities are children of the workflow run (no span for the scheduling instant).
  for (const key of ['extractPage']) {
    assert.equal(
      found[key]?.parentSpanId,
      found.run?.spanContext().spanId,
      `${key} is a child of RunWorkflow`,
    );
  }
  assert.ok(!spans.some((s) => s.name.startsWith('StartActivity:')));
  // The outbound calls are children of the activities that made them.
  assert.equal(found.pageFetch?.parentSpanId, found.extractPage?.spanContext().spanId);
  assert.equal(found.modelCall?.parentSpanId, found.extractPage?.spanContext().spanId);
  assert.equal(found.modelCall?.attributes['http.request.method'], 'POST');
  // Activity spans name the job.
  assert.equal(found.extractPage?.attributes['job.id'], jobId);
  assert.equal(found.extractPage?.attributes['tenant.id'], svc.tenantId);
  assert.equal(found.run?.attributes.workflowId, `extract-${jobId}`);
  // The model call carries the trace; the scraped site gets no trace headers.
  const modelRequest = svc.llm.requests.at(-1);
  assert.match(String(modelRequest?.headers.traceparent), new RegExp(`^00-${traceId}-`));
  assert.ok(pageRequestHeaders.length > 0);
  for (const headers of pageRequestHeaders) {
    assert.equal(headers.traceparent, undefined, 'no traceparent to the scraped site');
    assert.equal(headers.baggage, undefined);
  }
  // The API's lines for the request name its trace.
  const apiLines = logText
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { trace_id?: string; jobId?: string; msg?: string });
  assert.ok(
    apiLines.some((line) => line.trace_id === traceId && line.jobId === jobId),
    'an API line of the request carries its trace id and job',
  );
  // Outbound spans keep no query string (tokens travel there).
  assert.equal(found.pageFetch?.attributes['url.full'], `${site.url}/product`);
  for (const span of spans.filter((s) => s.attributes['url.full'] !== undefined)) {
    assert.ok(!JSON.stringify(span.attributes).includes('s3cr3t'), `${span.name} keeps no query secret`);
  }
});
