// The DOM turndown parses with ships no types; only what markdown.ts uses is declared.
declare module '@mixmark-io/domino' {
  export function createDocument(html?: string): Document;
}
