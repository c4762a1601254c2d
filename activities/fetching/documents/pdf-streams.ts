// A quick first refusal of the commonest PDF bomb: a FlateDecode stream of a few hundred kilobytes that
// inflates to gigabytes. Every Flate stream (each layer of a chained filter) is inflated here with node:zlib's
// maxOutputLength, and all of them together may not exceed the bound. This reads filters by name, so it is not
// what bounds a document: other filters and spellings, and whatever else pdf.js allocates, are bounded by the
// reader process's memory (reader-process.ts). Linear scans only.
import { constants, inflateSync } from 'node:zlib';
import { CategorizedError } from '../../../shared/errors.js';

/** How far before a `stream` keyword its dictionary is looked for. */
const DICT_WINDOW = 4096;

/** Throws content_too_large when the file's Flate streams inflate, together, past `maxBytes`. */
export function checkPdfStreams(body: Uint8Array, maxBytes: number): void {
  const pdf = Buffer.from(body.buffer, body.byteOffset, body.length);
  const text = pdf.toString('latin1');
  let total = 0;
  let at = text.indexOf('stream', 0);
  while (at !== -1) {
    const isKeyword = !text.startsWith('end', at - 3);
    const next = text.indexOf('endstream', at + 6);
    if (isKeyword && next !== -1) {
      const dict = text.slice(Math.max(0, at - DICT_WINDOW), at);
      const layers = flateLayers(dict.slice(dict.lastIndexOf(' obj') + 1));
      if (layers > 0) {
        const start = at + 6 + (text.startsWith('\r\n', at + 6) ? 2 : text[at + 6] === '\n' ? 1 : 0);
        total += inflatedSize(pdf.subarray(start, next), layers, maxBytes - total);
        if (total > maxBytes) throw tooLarge(maxBytes);
      }
    }
    at = next === -1 ? -1 : text.indexOf('stream', next + 9);
  }
}

/** How many FlateDecode filters the stream's dictionary names (a chain may repeat it). */
function flateLayers(dict: string): number {
  const filter = dict.lastIndexOf('/Filter');
  if (filter === -1) return 0;
  return dict.slice(filter).split('/FlateDecode').length - 1;
}

/** Bytes the stream inflates to through its layers; past `budget`, budget + 1. Broken data counts 0. */
function inflatedSize(data: Buffer, layers: number, budget: number): number {
  let current = data;
  let total = 0;
  for (let i = 0; i < layers; i++) {
    try {
      current = inflateSync(current, {
        maxOutputLength: Math.max(1, budget - total + 1),
        finishFlush: constants.Z_SYNC_FLUSH,
      });
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return budget + 1;
      return total; // not valid Flate data: pdf.js reads what it can of it
    }
    total += current.length;
    if (total > budget) return budget + 1;
  }
  return total;
}

function tooLarge(limit: number): CategorizedError {
  return new CategorizedError(
    'content_too_large',
    `the PDF's compressed streams unpack to more than the ${limit} bytes allowed`,
    false,
    { limit_bytes: limit },
  );
}
