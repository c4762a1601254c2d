// Office Open XML files (DOCX, XLSX, PPTX) as HTML. Which one a zip is comes from its parts, not from what the
// server called it. Word documents go through mammoth (headings, lists, tables kept), workbooks through
// read-excel-file (each sheet a table), presentations are read from their slide XML (each slide a section,
// titles as headings, tables as tables).
import { load } from 'cheerio';
import type { Unzipped } from 'fflate';
import { CategorizedError } from '../../../shared/errors.js';
import { documentHtml, escapeHtml, section, tableHtml } from './html.js';
import { DOCX, PPTX, XLSX } from './kinds.js';
import type { ReadLimits } from './read-limits.js';
import { damaged, storedZip, textOf, unzipBounded } from './zip.js';

export interface OfficeReading {
  html: string;
  contentType: string;
}

export async function officeToHtml(body: Uint8Array, limits: ReadLimits): Promise<OfficeReading> {
  const parts = unzipBounded(body, limits);
  const [contentType, read] = readerOf(parts);
  const html = await read(parts);
  // Our own section headings are not the document's text.
  const text = html.replace(/<h2>[^<]*<\/h2>/g, '').replace(/<[^>]*>/g, '');
  if (!/\S/.test(text)) throw new CategorizedError('insufficient_content', 'the document holds no text');
  return { html: documentHtml(titleOf(parts), html), contentType };
}

type Reader = (parts: Unzipped) => string | Promise<string>;

function readerOf(parts: Unzipped): [string, Reader] {
  if (parts['word/document.xml']) return [DOCX, docx];
  if (parts['xl/workbook.xml']) return [XLSX, xlsx];
  if (parts['ppt/presentation.xml']) return [PPTX, pptx];
  throw new CategorizedError(
    'unsupported_content',
    'the file is a zip archive, not a DOCX, XLSX or PPTX',
    false,
    {
      contentType: 'application/zip',
    },
  );
}

/** Images are left out: their bytes would only bloat what the model reads. */
async function docx(parts: Unzipped): Promise<string> {
  // Parsers load on first use: most threads never read an Office file.
  const { default: mammoth } = await import('mammoth');
  const result = await mammoth
    .convertToHtml(
      { buffer: Buffer.from(storedZip(parts)) },
      {
        externalFileAccess: false,
        convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
      },
    )
    .catch((err: unknown) => {
      throw damaged(err);
    });
  return result.value;
}

async function xlsx(parts: Unzipped): Promise<string> {
  const { default: readXlsxFile } = await import('read-excel-file/node');
  const sheets = await readXlsxFile(Buffer.from(storedZip(parts))).catch((err: unknown) => {
    throw damaged(err);
  });
  return sheets
    .map(({ sheet, data }) => section('sheet', sheet, sheet, tableHtml(data.map((row) => row.map(cellText)))))
    .join('');
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  return String(value);
}

const slideNumber = (name: string) => Number(/slide(\d+)\.xml$/.exec(name)?.[1] ?? 0);

function pptx(parts: Unzipped): string {
  const slides = Object.keys(parts)
    .filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name))
    .sort((a, b) => slideNumber(a) - slideNumber(b));
  return slides
    .map((name) =>
      section('slide', slideNumber(name), `Slide ${slideNumber(name)}`, slideHtml(textOf(parts, name) ?? '')),
    )
    .join('');
}

/** A slide's shapes in order: a title placeholder is a heading, a table a table, other text paragraphs. */
function slideHtml(xml: string): string {
  const $ = load(xml, { xml: true });
  type Node = Parameters<typeof $>[0];
  /** The texts of the paragraphs inside a node, one string per paragraph. */
  const paragraphs = (node: Node): string[] =>
    $(node)
      .find('a\\:p')
      .toArray()
      .map((p) =>
        $(p)
          .find('a\\:t')
          .toArray()
          .map((t) => $(t).text())
          .join(''),
      );
  const out: string[] = [];
  for (const shape of $('p\\:sp, a\\:tbl').toArray()) {
    if (shape.tagName === 'a:tbl') {
      const rows = $(shape)
        .find('a\\:tr')
        .toArray()
        .map((tr) =>
          $(tr)
            .find('a\\:tc')
            .toArray()
            .map((tc) => paragraphs(tc).join(' ')),
        );
      out.push(tableHtml(rows));
      continue;
    }
    const type = $(shape).find('p\\:nvSpPr p\\:ph').attr('type');
    const texts = paragraphs(shape).filter((text) => text.trim() !== '');
    if (type === 'title' || type === 'ctrTitle') out.push(`<h3>${escapeHtml(texts.join(' '))}</h3>\n`);
    else for (const text of texts) out.push(`<p>${escapeHtml(text)}</p>\n`);
  }
  return out.join('');
}

/** The title the file's core properties give, if any. */
function titleOf(parts: Unzipped): string {
  const core = textOf(parts, 'docProps/core.xml');
  if (!core) return '';
  return load(core, { xml: true })('dc\\:title').first().text().trim();
}
