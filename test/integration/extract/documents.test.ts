// Documents: PDF and Office files are read as HTML in the HTML pool and extracted like pages, in
// static and dynamic mode and in crawls; a scan without a text layer, and a zip bomb, end with clear categories
// and the worker goes on. Fixtures: test/fixtures/documents/ (made by make.ts there).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, beforeEach, describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { waitForJobEnd } from '../../support/crawl-jobs.js';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

const PDF = 'application/pdf';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const MiB = 1024 * 1024;

const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

/** A two-slide deck as PowerPoint writes one, reduced to the parts the reader uses. */
function deck(): Uint8Array {
  const ns =
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ' +
    'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
  const run = (text: string) => `<a:p><a:r><a:t>${text}</a:t></a:r></a:p>`;
  const shape = (ph: string, body: string) =>
    `<p:sp><p:nvSpPr><p:cNvPr id="1" name="s"/><p:cNvSpPr/><p:nvPr>${ph}</p:nvPr></p:nvSpPr><p:txBody>${body}</p:txBody></p:sp>`;
  const cell = (text: string) => `<a:tc><a:txBody>${run(text)}</a:txBody></a:tc>`;
  const table = `<p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr>${cell('Plan')}${cell('Seats')}</a:tr><a:tr>${cell('Team')}${cell('25')}</a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`;
  const slide = (title: string, body: string, extra = '') =>
    strToU8(
      `<?xml version="1.0"?><p:sld ${ns}><p:cSld><p:spTree>${shape('<p:ph type="title"/>', run(title))}` +
        `${shape('<p:ph idx="1"/>', run(body))}${extra}</p:spTree></p:cSld></p:sld>`,
    );
  return zipSync({
    'ppt/presentation.xml': strToU8(`<p:presentation ${ns}/>`),
    'ppt/slides/slide1.xml': slide('Pricing 2026', 'Plans for every team size', table),
    'ppt/slides/slide2.xml': slide('Contact', 'sales@example.test'),
  });
}

/** A one-page PDF whose content stream is `bytes` of spaces, Flate-compressed (a few KB on the wire). */
function streamBombPdf(bytes: number): Buffer {
  const stream = deflateSync(Buffer.alloc(bytes, ' '), { level: 9 });
  const objects = [
    '<</Type/Catalog/Pages 2 0 R>>',
    '<</Type/Pages/Kids[3 0 R]/Count 1>>',
    '<</Type/Page/Parent 2 0 R/MediaBox[0 0 600 800]/Contents 4 0 R>>',
  ].map((dict, i) => Buffer.from(`${i + 1} 0 obj ${dict} endobj\n`));
  objects.push(
    Buffer.concat([
      Buffer.from(`4 0 obj <</Length ${stream.length}/Filter/FlateDecode>> stream\n`),
      stream,
      Buffer.from('\nendstream endobj\n'),
    ]),
  );
  const head = Buffer.from('%PDF-1.4\n');
  const offsets: number[] = [];
  let at = head.length;
  for (const object of objects) {
    offsets.push(at);
    at += object.length;
  }
  const xref =
    `xref\n0 5\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}` +
    `trailer <</Size 5/Root 1 0 R>>\nstartxref\n${at}\n%%EOF\n`;
  return Buffer.concat([head, ...objects, Buffer.from(xref)]);
}

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/documents/${name}`, import.meta.url));

let svc: TestService;
let site: FixtureSite;

before(async () => {
  // 1 MiB pages: an Office file may then unpack to 10 MiB, which the bomb below exceeds.
  svc = await startTestService({ env: { FETCH_MAX_BYTES: String(MiB) } });
  site = await startFixtureSite();
  const serve = (path: string, type: string, body: Buffer | Uint8Array) =>
    site.route(path, (_req, res) => res.writeHead(200, { 'content-type': type }).end(body));
  serve('/price-list.pdf', PDF, fixture('price-list.pdf'));
  serve('/spec-sheet.docx', DOCX, fixture('spec-sheet.docx'));
  // A server that names no useful type: the file's signature and parts say what it is.
  serve('/download', 'application/octet-stream', fixture('sales.xlsx'));
  serve('/scanned.pdf', PDF, fixture('scanned.pdf'));
  serve('/deck.pptx', PPTX, deck());
  serve('/stream-bomb.pdf', PDF, streamBombPdf(12 * MiB));
  // 12 MiB of zeros deflate to ~12 KB: the parts would unpack past the 10 MiB bound.
  serve('/bomb.docx', DOCX, zipSync({ 'word/document.xml': new Uint8Array(12 * MiB) }, { level: 9 }));
  site.route(
    '/',
    html(
      'Downloads',
      '<h1>Downloads</h1><a href="/price-list.pdf">Price list</a> <a href="/spec-sheet.docx">Spec</a>',
    ),
  );
});
after(async () => {
  await site?.close();
  await svc?.close();
});
beforeEach(() => svc.llm.reset());

const extract = (path: string, extra: object = {}) =>
  svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { url: `${site.url}${path}`, schema: { title: 'string', items: 'string[]' }, ...extra },
  });

/** What the model was sent, all requests together; runs of spaces as one (markdown pads table cells). */
const sentToModel = () =>
  svc.llm.requests
    .map((r) => JSON.stringify(r.body))
    .join('\n')
    .replace(/ +/g, ' ');

function assertSent(...texts: string[]) {
  const sent = sentToModel();
  for (const text of texts) assert.ok(sent.includes(text), `the model was not sent ${JSON.stringify(text)}`);
}

describe('documents', () => {
  test('a PDF is read by its text layer, page by page, and says it was a PDF', async () => {
    const res = await extract('/price-list.pdf', { fetch_mode: 'static' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().metadata.content_type, PDF);
    assertSent('Acme Price List 2026', 'Copper kettle 42.00', 'Oak table 310.00', 'Page 1', 'Page 2');
    assertSent('delivery is free above 100 euros');
  });

  test('a DOCX keeps its heading and its table rows', async () => {
    const res = await extract('/spec-sheet.docx');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().metadata.content_type, DOCX);
    assertSent('# Spec Sheet: Model X200', 'The X200 pump moves water quietly.');
    assertSent('| Flow rate | 1200 l/h |', '| Weight | 3.4 kg |');
  });

  test('an XLSX sent as application/octet-stream is known by its parts; each sheet is a table', async () => {
    const res = await extract('/download');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().metadata.content_type, XLSX);
    assertSent('| Region | Quarter | Revenue |', '| North | Q1 | 1500 |', '| South | Q1 | 2750 |');
  });

  test('a PPTX is read slide by slide, with titles and tables', async () => {
    const res = await extract('/deck.pptx');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().metadata.content_type, PPTX);
    assertSent('## Slide 1', '### Pricing 2026', 'Plans for every team size', '| Team | 25 |', '## Slide 2');
  });

  test('in dynamic mode the browser hands the download to a static fetch of the document', async () => {
    const res = await extract('/price-list.pdf', { fetch_mode: 'dynamic' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().metadata.content_type, PDF);
    assertSent('Copper kettle 42.00');
  });

  test('a scanned PDF without a text layer fails with no_text_layer', async () => {
    const res = await extract('/scanned.pdf');
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error_category, 'no_text_layer');
    assert.equal(svc.llm.requests.length, 0);
  });

  test('a zip bomb is content_too_large, and the worker reads the next document', async () => {
    const res = await extract('/bomb.docx');
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error_category, 'content_too_large');
    const next = await extract('/spec-sheet.docx');
    assert.equal(next.statusCode, 200, next.body);
  });

  test('a PDF whose compressed stream would unpack past the bound is content_too_large', async () => {
    const res = await extract('/stream-bomb.pdf');
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error_category, 'content_too_large');
    assert.match(res.json().detail, /compressed streams/);
  });

  test('a crawl follows links to documents its pattern allows', async () => {
    const res = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/crawl',
      headers: svc.auth(),
      payload: {
        url: `${site.url}/`,
        schema: { title: 'string' },
        options: { follow_pattern: '\\.(pdf|docx)$', max_depth: 1 },
      },
    });
    assert.equal(res.statusCode, 202, res.body);
    const job = await waitForJobEnd(svc, res.json().job_id);
    assert.equal(job.status, 'completed');
    const results = await svc.app.inject({ url: `/api/v1/jobs/${job.id}/results`, headers: svc.auth() });
    const pages = results.json() as { url: string; status: string }[];
    const completed = pages.filter((p) => p.status === 'completed').map((p) => new URL(p.url).pathname);
    assert.deepEqual(completed.sort(), ['/', '/price-list.pdf', '/spec-sheet.docx']);
    assertSent('Copper kettle 42.00', '1200 l/h');
  });
});
