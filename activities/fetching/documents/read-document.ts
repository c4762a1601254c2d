// A downloaded document read as HTML, in the document reader's child process (reader-child.ts): under the
// HTML time limit (HTML_TIMEOUT_MS) and the process's memory bound (reader-process.ts). PDFs by their text
// layer, Office files by their parts; the caller names no type it trusts, the bytes decide.
import { PDF } from './kinds.js';
import { officeToHtml } from './office.js';
import { pdfToHtml, tooMuchText } from './pdf.js';
import type { ReadLimits } from './read-limits.js';

export interface DocumentReading {
  /** The document as HTML. */
  html: string;
  /** What was read: application/pdf or an Office type. */
  contentType: string;
  /** A PDF's page count. */
  pages?: number;
}

/**
 * Loads the parsers a document of this kind needs (once per process). pdf.js alone takes seconds to load under
 * tsx on a busy machine: the child does this before it says it is ready, so time limits count the reading only.
 */
export async function loadReader(kind: 'pdf' | 'zip'): Promise<void> {
  if (kind === 'pdf') {
    await import('pdfjs-dist/legacy/build/pdf.mjs');
    // pdf.js runs its "worker" in this process when it finds it here, instead of importing it per document.
    const worker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker ??= worker;
  } else {
    await Promise.all([import('mammoth'), import('read-excel-file/node')]);
  }
}

export async function readDocument(
  body: Uint8Array,
  kind: 'pdf' | 'zip',
  limits: ReadLimits,
): Promise<DocumentReading> {
  const reading =
    kind === 'pdf'
      ? { ...(await pdfToHtml(body, limits)), contentType: PDF }
      : await officeToHtml(body, limits);
  if (reading.html.length > limits.maxHtmlChars) throw tooMuchText(limits.maxHtmlChars);
  return reading;
}
