// A PDF's text layer as HTML, page by page (pdfjs-dist, the legacy build that runs in Node). Text items become
// lines by their baseline and lines become paragraphs by the gaps between them; each page is a section headed
// "Page N". A PDF with no text at all (a scan) fails with no_text_layer: there is nothing to read without OCR.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { CategorizedError } from '../../../shared/errors.js';
import { documentHtml, escapeHtml, section } from './html.js';
import { checkPdfStreams } from './pdf-streams.js';
import type { ReadLimits } from './read-limits.js';
import { damaged } from './zip.js';

const PDFJS_DIR = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));

interface Line {
  text: string;
  y: number;
  height: number;
}

export async function pdfToHtml(
  body: Uint8Array,
  limits: ReadLimits,
): Promise<{ html: string; pages: number }> {
  checkPdfStreams(body, limits.maxUnzippedBytes);
  // Loaded on first use: most threads never read a PDF, and pdf.js is large.
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const loading = getDocument({
    data: new Uint8Array(body),
    // No code from the file is ever run, and no fonts are loaded: only the text layer is read.
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    verbosity: 0,
    cMapUrl: `${join(PDFJS_DIR, 'cmaps')}/`,
    cMapPacked: true,
    standardFontDataUrl: `${join(PDFJS_DIR, 'standard_fonts')}/`,
  });
  const pdf = await loading.promise.catch((err: unknown) => {
    throw (err as Error).name === 'PasswordException'
      ? new CategorizedError('unsupported_content', 'the PDF is password-protected', false, {
          reason: 'encrypted_document',
        })
      : damaged(err);
  });
  try {
    const sections: string[] = [];
    let chars = 0;
    let textChars = 0;
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      page.cleanup();
      const lines = linesOf(content.items.filter((item): item is TextItem => 'str' in item));
      textChars += lines.reduce((sum, line) => sum + line.text.trim().length, 0);
      const part = section('page', n, `Page ${n}`, paragraphsOf(lines));
      chars += part.length;
      if (chars > limits.maxHtmlChars) throw tooMuchText(limits.maxHtmlChars);
      sections.push(part);
    }
    if (textChars === 0) throw noTextLayer(pdf.numPages);
    const info = (await pdf.getMetadata().catch(() => null))?.info as { Title?: unknown } | undefined;
    const title = typeof info?.Title === 'string' ? info.Title : '';
    return { html: documentHtml(title, sections.join('')), pages: pdf.numPages };
  } finally {
    await pdf.destroy();
  }
}

/** Items on one baseline (within half a line) make a line; an item ending its line (hasEOL) ends it. */
function linesOf(items: TextItem[]): Line[] {
  const lines: Line[] = [];
  let current: Line | null = null;
  for (const item of items) {
    const y = item.transform[5] ?? 0;
    const height = Math.abs(item.height) || Math.abs(item.transform[3] ?? 0) || 1;
    if (current && Math.abs(current.y - y) > Math.max(current.height, height) / 2) {
      lines.push(current);
      current = null;
    }
    if (item.str) {
      current ??= { text: '', y, height };
      current.text += item.str;
      current.height = Math.max(current.height, height);
    }
    if (item.hasEOL && current) {
      lines.push(current);
      current = null;
    }
  }
  if (current) lines.push(current);
  return lines.filter((line) => line.text.trim() !== '');
}

/** A gap of more than ~1.8 lines, or a jump up the page (a new column), starts a paragraph. */
function paragraphsOf(lines: Line[]): string {
  const paragraphs: string[][] = [];
  let previous: Line | null = null;
  for (const line of lines) {
    const gap = previous ? previous.y - line.y : 0;
    const fresh = !previous || gap < 0 || gap > 1.8 * Math.max(previous.height, line.height);
    if (fresh) paragraphs.push([]);
    paragraphs.at(-1)?.push(escapeHtml(line.text.trim()));
    previous = line;
  }
  return paragraphs.map((p) => `<p>${p.join('<br>\n')}</p>\n`).join('');
}

function noTextLayer(pages: number): CategorizedError {
  return new CategorizedError(
    'no_text_layer',
    `the PDF has no text layer (${pages} page${pages === 1 ? '' : 's'} of images, e.g. a scan): OCR is not done`,
    false,
    { pages },
  );
}

export function tooMuchText(limit: number): CategorizedError {
  return new CategorizedError(
    'content_too_large',
    `the document's text is larger than the ${limit} characters a page may hold (FETCH_MAX_BYTES)`,
    false,
    { limit_chars: limit },
  );
}
