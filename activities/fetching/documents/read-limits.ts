// What reading one document may take (below the readers, which all take it).

export interface ReadLimits {
  /** Characters the HTML may hold (FETCH_MAX_BYTES: what a web page's body may hold). */
  maxHtmlChars: number;
  /** Bytes an Office file's parts, or a PDF's compressed streams, may inflate to, together. */
  maxUnzippedBytes: number;
}
