// Office files are zips of XML parts, and a zip can hold a bomb: a few kilobytes that inflate to gigabytes.
// Parts are inflated here with fflate, which never writes more than a part's declared size, after the
// declared sizes were checked against the bound; the parsers (mammoth, read-excel-file) then get the parts
// again as a stored (uncompressed) zip, so nothing they inflate can be larger than what was checked.
import { type Unzipped, unzipSync, zipSync } from 'fflate';
import { CategorizedError } from '../../../shared/errors.js';

/** Parts an Office file may hold at most: real ones hold tens to a few hundred. */
export const MAX_ZIP_PARTS = 5_000;

export interface ZipLimits {
  /** Bytes all parts may inflate to, together. */
  maxUnzippedBytes: number;
}

/** The zip's parts, inflated, or content_too_large when they would be larger than the bound. */
export function unzipBounded(body: Uint8Array, limits: ZipLimits): Unzipped {
  let total = 0;
  let parts = 0;
  try {
    unzipSync(body, {
      filter(file) {
        parts += 1;
        total += file.originalSize;
        return false;
      },
    });
  } catch (err) {
    throw damaged(err);
  }
  if (parts > MAX_ZIP_PARTS)
    throw new CategorizedError(
      'content_too_large',
      `the document has ${parts} parts (at most ${MAX_ZIP_PARTS})`,
    );
  if (total > limits.maxUnzippedBytes) throw tooLarge(total, limits.maxUnzippedBytes);
  try {
    return unzipSync(body);
  } catch (err) {
    throw damaged(err);
  }
}

/** The parts as a zip again, stored rather than compressed: what a parser inflates is what was checked. */
export const storedZip = (parts: Unzipped): Uint8Array => zipSync(parts, { level: 0 });

export const textOf = (parts: Unzipped, name: string): string | null => {
  const part = parts[name];
  return part ? new TextDecoder().decode(part) : null;
};

function tooLarge(bytes: number, limit: number): CategorizedError {
  return new CategorizedError(
    'content_too_large',
    `the document's parts unpack to ${bytes} bytes, more than the ${limit} allowed`,
    false,
    { unzipped_bytes: bytes, limit_bytes: limit },
  );
}

export function damaged(err: unknown): CategorizedError {
  const reason = err instanceof Error ? err.message : String(err);
  return new CategorizedError('unsupported_content', `the document could not be read (${reason})`, false, {
    reason: 'unreadable_document',
  });
}
