// Which responses are documents (PDF, DOCX, XLSX, PPTX) rather than web pages: by media type, or by the
// file's signature when the server named a generic type. Pure and cheap: the fetchers ask it before and after
// downloading; the documents themselves are read in a child process (reader.ts).

export const PDF = 'application/pdf';
export const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
export const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

/** The document types the service reads, as metadata.content_type names them. */
export const DOCUMENT_FILE_TYPES: readonly string[] = [PDF, DOCX, XLSX, PPTX];

/** Types a server may send a document under: downloaded, then told apart by their first bytes. */
const GENERIC_TYPES = [
  'application/octet-stream',
  'binary/octet-stream',
  'application/zip',
  'application/x-zip-compressed',
  'application/x-pdf',
  'application/download',
  'application/force-download',
];

/** Whether a response of this type may be a document: worth downloading to look at its first bytes. */
export function mayBeDocument(mime: string): boolean {
  return DOCUMENT_FILE_TYPES.includes(mime) || GENERIC_TYPES.includes(mime);
}

export const isDocumentType = (mime: string): boolean => DOCUMENT_FILE_TYPES.includes(mime);

/**
 * What a downloaded body is, from its signature: 'pdf', 'zip' (an Office file is a zip of XML parts; which one
 * is read from its parts), or null (not a document: the caller refuses it as unsupported content).
 */
export function fileKind(mime: string, body: Uint8Array): 'pdf' | 'zip' | null {
  if (!mayBeDocument(mime)) return null;
  // %PDF- may follow a little junk (the PDF reference allows it within the first 1,024 bytes).
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 1024)).toString('latin1');
  if (head.includes('%PDF-')) return 'pdf';
  if (head.startsWith('PK\x03\x04')) return 'zip';
  return null;
}

/** Reads a downloaded document as HTML (in a child process: activities/fetching/documents/reader.ts). */
export type DocumentReader = (
  body: Uint8Array,
  file: 'pdf' | 'zip',
  signal?: AbortSignal,
) => Promise<{ html: string; contentType: string }>;
