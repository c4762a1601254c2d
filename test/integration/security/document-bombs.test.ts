// Documents are bounded by what reading them takes, not by how their filters are spelled. PDFs whose page
// stream unpacks to 256 MiB through spellings and filters pdf.js accepts (/Fl, a filter named by an indirect
// object, a [/FlateDecode] array, LZW, Flate then RunLength, Brotli, a dictionary padded past 4,096
// characters), and a DOCX whose one part parses into hundreds of megabytes of objects, each end with
// content_too_large, while the worker's resident memory stays flat (they are read in a child process that is
// killed past its bound). Before, most passed the filter check and were unpacked inside the worker process.
// A normal PDF and DOCX are read afterwards.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import {
  brotliZeros,
  deflatedZeros,
  denseDocx,
  lzwZeros,
  pdfWithStream,
  runLengthZeros,
} from '../../support/document-bombs.js';
import { type FixtureSite, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

const PDF = 'application/pdf';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const MiB = 2 ** 20;
/** What each bomb's stream unpacks to. */
const UNPACKED = 256 * MiB;
/** How much the worker's resident memory may grow while it refuses a bomb. */
const RSS_GROWTH = 100 * MiB;

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/documents/${name}`, import.meta.url));

let svc: TestService;
let site: FixtureSite;

before(async () => {
  // 1 MiB pages: a document may use 168 MiB while it is read, which every bomb below exceeds. A generous time
  // limit: on a busy machine a bomb must reach its memory bound before the time bound.
  svc = await startTestService({ env: { FETCH_MAX_BYTES: String(MiB), HTML_TIMEOUT_MS: '60000' } });
  site = await startFixtureSite();
  const serve = (path: string, type: string, body: Uint8Array) =>
    site.route(path, (_req, res) => res.writeHead(200, { 'content-type': type }).end(body));
  const zeros = await deflatedZeros(UNPACKED);
  serve('/fl.pdf', PDF, pdfWithStream('/Filter/Fl', zeros));
  serve('/indirect.pdf', PDF, pdfWithStream('/Filter 5 0 R', zeros, ['/FlateDecode']));
  serve('/array.pdf', PDF, pdfWithStream('/Filter[/FlateDecode]', zeros));
  serve('/lzw.pdf', PDF, pdfWithStream('/Filter/LZW', lzwZeros(UNPACKED)));
  const runs = deflateSync(runLengthZeros(UNPACKED), { level: 9 });
  serve('/flate-rl.pdf', PDF, pdfWithStream('/Filter[/FlateDecode/RL]', runs));
  serve('/brotli.pdf', PDF, pdfWithStream('/Filter/BrotliDecode', brotliZeros(UNPACKED)));
  serve('/padded.pdf', PDF, pdfWithStream(`/Filter/FlateDecode/Pad(${' '.repeat(5_000)})`, zeros));
  // 9 MiB of one-letter paragraphs: within the 10 MiB a DOCX's parts may unpack to, ~30 KB on the wire.
  serve('/dense.docx', DOCX, denseDocx(9 * MiB));
  serve('/price-list.pdf', PDF, fixture('price-list.pdf'));
  serve('/spec-sheet.docx', DOCX, fixture('spec-sheet.docx'));
});
after(async () => {
  await site?.close();
  await svc?.close();
});

const extract = (path: string) =>
  svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { url: `${site.url}${path}`, schema: { title: 'string' }, fetch_mode: 'static' },
  });

/** Extracts and measures the highest resident memory of this process (the worker's) meanwhile. */
async function extractWatched(path: string) {
  const before = process.memoryUsage().rss;
  let peak = before;
  const watch = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const res = await extract(path);
    return { res, growth: peak - before };
  } finally {
    clearInterval(watch);
  }
}

describe('document bombs', () => {
  const bombs = [
    '/fl.pdf',
    '/indirect.pdf',
    '/array.pdf',
    '/lzw.pdf',
    '/flate-rl.pdf',
    '/brotli.pdf',
    '/padded.pdf',
    '/dense.docx',
  ];
  for (const path of bombs)
    test(`${path} ends content_too_large and the worker's memory stays flat`, async () => {
      const { res, growth } = await extractWatched(path);
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().error_category, 'content_too_large', res.body);
      assert.ok(growth < RSS_GROWTH, `the worker grew by ${Math.round(growth / MiB)} MiB`);
    });

  test('a PDF and a DOCX are read after the bombs', async () => {
    const pdf = await extract('/price-list.pdf');
    assert.equal(pdf.statusCode, 200, pdf.body);
    assert.equal(pdf.json().metadata.content_type, PDF);
    const docx = await extract('/spec-sheet.docx');
    assert.equal(docx.statusCode, 200, docx.body);
    assert.equal(docx.json().metadata.content_type, DOCX);
  });
});
