// The document readers' bounds, alone (activities/fetching/documents/): what a file's signature says it is, a
// zip whose headers lie about its sizes, a PDF stream bomb through a chain of filters, a zip that is no
// Office file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { fileKind } from '../../activities/fetching/documents/kinds.js';
import { checkPdfStreams } from '../../activities/fetching/documents/pdf-streams.js';
import { readDocument } from '../../activities/fetching/documents/read-document.js';
import { unzipBounded } from '../../activities/fetching/documents/zip.js';
import { CategorizedError } from '../../shared/errors.js';

const MiB = 1024 * 1024;
const LIMITS = { maxHtmlChars: MiB, maxUnzippedBytes: 10 * MiB };

const category = (name: string) => (err: unknown) => {
  assert.ok(err instanceof CategorizedError, String(err));
  assert.equal(err.category, name, err.message);
  return true;
};

test('a file is a document by its signature, and only under a type a document may have', () => {
  assert.equal(fileKind('application/octet-stream', strToU8('%PDF-1.7\n')), 'pdf');
  assert.equal(fileKind('application/pdf', strToU8('\n\n%PDF-1.4')), 'pdf');
  assert.equal(fileKind('application/zip', zipSync({ a: strToU8('x') })), 'zip');
  assert.equal(fileKind('text/html', strToU8('%PDF-1.4')), null);
  assert.equal(fileKind('application/octet-stream', strToU8('\x89PNG')), null);
});

test("a zip whose headers understate its parts' sizes yields no more than they declare", () => {
  const real = 3 * MiB;
  const zip = Buffer.from(zipSync({ 'word/document.xml': new Uint8Array(real) }));
  // Declare 1,000 bytes in the local header and in the central directory.
  for (let i = 0; i + 28 <= zip.length; i++) {
    const signature = zip.readUInt32LE(i);
    if (signature === 0x04034b50 && zip.readUInt32LE(i + 22) === real) zip.writeUInt32LE(1000, i + 22);
    if (signature === 0x02014b50 && zip.readUInt32LE(i + 24) === real) zip.writeUInt32LE(1000, i + 24);
  }
  const parts = unzipBounded(zip, { maxUnzippedBytes: 2 * MiB });
  assert.equal(parts['word/document.xml']?.length, 1000);
});

test('a PDF stream behind two Flate filters is measured through both', () => {
  const inner = deflateSync(Buffer.alloc(12 * MiB, ' '));
  const outer = deflateSync(inner);
  const pdf = Buffer.concat([
    Buffer.from(`%PDF-1.4\n4 0 obj <</Length ${outer.length}/Filter[/FlateDecode /FlateDecode]>> stream\n`),
    outer,
    Buffer.from('\nendstream endobj\n%%EOF\n'),
  ]);
  assert.throws(() => checkPdfStreams(pdf, 10 * MiB), category('content_too_large'));
  assert.doesNotThrow(() => checkPdfStreams(pdf, 20 * MiB));
});

test('a zip that is not an Office file, and a broken zip, are unsupported_content', async () => {
  await assert.rejects(
    readDocument(zipSync({ 'notes.txt': strToU8('hello') }), 'zip', LIMITS),
    category('unsupported_content'),
  );
  await assert.rejects(
    readDocument(strToU8('PK\x03\x04broken'), 'zip', LIMITS),
    category('unsupported_content'),
  );
});
