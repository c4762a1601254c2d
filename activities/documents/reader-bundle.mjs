// The reader process's entry in the worker's process bundle (scripts/build-processes.ts bundles it into
// dist/node/document-reader.mjs with the reader's code, pdf.js left as a package import). Plain JavaScript,
// so no loader is registered; pdf.js runs its "worker" in this process when it finds it here.
import * as pdfjsWorker from 'pdfjs-dist/legacy/build/pdf.worker.mjs';

globalThis.pdfjsWorker ??= pdfjsWorker;
await import('./reader-child.ts');
