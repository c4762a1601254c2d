// Hostile documents built in memory: PDFs whose streams unpack to hundreds of megabytes through filters and
// spellings pdf.js accepts, and an Office file whose parts a parser inflates far past their size on the wire.
import { brotliCompressSync, constants, createDeflate } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';

/** `bytes` of zeros, deflated without ever holding them (~1 KB per MiB). */
export async function deflatedZeros(bytes: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  const block = Buffer.alloc(2 ** 20);
  for (let left = bytes; left > 0; left -= block.length) {
    if (!deflate.write(left >= block.length ? block : block.subarray(0, left)))
      await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  return Buffer.concat(chunks);
}

/** `bytes` of zeros as PDF LZW codes (EarlyChange 1): each code past the table's end repeats ~3,800 zeros. */
export function lzwZeros(bytes: number): Buffer {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  const put = (code: number, width: number) => {
    acc = (acc << width) | code;
    bits += width;
    while (bits >= 8) {
      bits -= 8;
      out.push((acc >>> bits) & 0xff);
    }
    acc &= (1 << bits) - 1;
  };
  let width = 9;
  let nextCode = 258;
  put(0, width);
  let length = 1;
  let total = 1;
  while (total < bytes) {
    // A code equal to the next free one is the previous string plus its first byte: one zero longer.
    const code = nextCode < 4096 ? nextCode : 4095;
    put(code, width);
    length = code === nextCode ? length + 1 : length;
    total += length;
    nextCode++;
    if (((nextCode + 1) & nextCode) === 0) width = Math.min(Math.log2(nextCode + 1) + 1, 12);
  }
  put(257, width);
  if (bits > 0) put(0, 8 - bits);
  return Buffer.from(out);
}

/** Run-length codes for `bytes` zeros: each pair of bytes repeats a zero 128 times. */
export const runLengthZeros = (bytes: number): Buffer =>
  Buffer.concat([Buffer.alloc(Math.ceil(bytes / 128) * 2, Buffer.from([0x81, 0])), Buffer.from([0x80])]);

export const brotliZeros = (bytes: number): Buffer =>
  brotliCompressSync(Buffer.alloc(bytes), { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });

/**
 * A one-page PDF whose page content is a stream with this dictionary (without /Length) and data; `extra`
 * objects follow as objects 5, 6, … (e.g. a filter name the stream's /Filter refers to).
 */
export function pdfWithStream(dict: string, data: Buffer, extra: string[] = []): Buffer {
  const objects = [
    '<</Type/Catalog/Pages 2 0 R>>',
    '<</Type/Pages/Kids[3 0 R]/Count 1>>',
    '<</Type/Page/Parent 2 0 R/MediaBox[0 0 600 800]/Contents 4 0 R>>',
  ].map((body, i) => Buffer.from(`${i + 1} 0 obj ${body} endobj\n`));
  objects.push(
    Buffer.concat([
      Buffer.from(`4 0 obj <<${dict}/Length ${data.length}>> stream\n`),
      data,
      Buffer.from('\nendstream endobj\n'),
    ]),
  );
  for (const [i, body] of extra.entries()) objects.push(Buffer.from(`${i + 5} 0 obj ${body} endobj\n`));
  const head = Buffer.from('%PDF-1.7\n');
  const offsets: number[] = [];
  let at = head.length;
  for (const object of objects) {
    offsets.push(at);
    at += object.length;
  }
  const count = objects.length + 1;
  const xref =
    `xref\n0 ${count}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}` +
    `trailer <</Size ${count}/Root 1 0 R>>\nstartxref\n${at}\n%%EOF\n`;
  return Buffer.concat([head, ...objects, Buffer.from(xref)]);
}

/**
 * A DOCX whose document part is `bytes` of the densest markup Word has (one-letter paragraphs): small on the
 * wire and within the unzip bound, but the parser builds an object per element.
 */
export function denseDocx(bytes: number): Uint8Array {
  const paragraph = '<w:p><w:r><w:t>a</w:t></w:r></w:p>';
  const ns = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
  const xml = `<?xml version="1.0"?><w:document ${ns}><w:body>${paragraph.repeat(Math.floor(bytes / paragraph.length))}</w:body></w:document>`;
  return zipSync({ 'word/document.xml': strToU8(xml) }, { level: 9 });
}
