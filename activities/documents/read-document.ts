// A downloaded document read as HTML, in a thread of the HTML pool (activities/html-pool/tasks.ts): under the
// pool's time limit (HTML_TIMEOUT_MS) and the thread's heap bound, like cleaning a page. PDFs by their text
// layer, Office files by their parts; the caller names no type it trusts, the bytes decide.
import { PDF } from './kinds.js';

export interface ReadLimits {
  /** Characters the HTML may hold (FETCH_MAX_BYTES: what a web page's body may hold). */
  maxHtmlChars: number;
  /** Bytes an Office file's parts may inflate to, together. */
  maxUnzippedBytes: number;
}

export interface DocumentReading {
  /** The document as HTML. */
  html: string;
  /** What was read: application/pdf or an Office type. */
  contentType: string;
  /** A PDF's page count. */
  pages?: number;
}

export async function readDocument(
  body: Uint8Array,
  kind: 'pdf' | 'zip',
  limits: ReadLimits,
): Promise<DocumentReading> {
  // Loaded on first use: most threads never read a document, and pdf.js is large.
  const { pdfToHtml, tooMuchText } = await import('./pdf.js');
  const reading =
    kind === 'pdf'
      ? { ...(await pdfToHtml(body, limits)), contentType: PDF }
      : await (await import('./office.js')).officeToHtml(body, limits);
  if (reading.html.length > limits.maxHtmlChars) throw tooMuchText(limits.maxHtmlChars);
  return reading;
}
