// The reader process's entry (reader-process.ts forks it with plain Node). pdf.js is 2 MB of JavaScript:
// through the TypeScript loader it takes seconds and ~300 MB more to load (the loader rewrites it), so it is
// loaded here first, as Node loads it; the loader is registered afterwards, for the reader's own code, which
// then finds pdf.js already loaded.
import * as pdfjsWorker from 'pdfjs-dist/legacy/build/pdf.worker.mjs';
import 'pdfjs-dist/legacy/build/pdf.mjs';
import { register } from 'tsx/esm/api';

// pdf.js runs its "worker" in this process when it finds it here, instead of importing it per document.
globalThis.pdfjsWorker ??= pdfjsWorker;
register();
await import('./reader-child.ts');
