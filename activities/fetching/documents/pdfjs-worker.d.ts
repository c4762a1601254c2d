// pdf.js's worker module ships without types; only its presence matters here (read-document.ts).
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
