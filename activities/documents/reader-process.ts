// One document reader child process (reader-child.ts), watched from here. Its resident memory is measured
// every few milliseconds while it reads, and past the bound it is killed: whatever a file makes its parser
// allocate (any filter, any spelling, decoded buffers no heap bound counts), the worker's own memory never
// holds it. Killing is also the only way to stop a parser stuck in synchronous code, at its time limit or
// when the job is cancelled. Resident memory is read from Linux's /proc; elsewhere only the child's heap bound
// (--max-old-space-size) holds.
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { CategorizedError } from '../../shared/errors.js';
import { moduleEntry } from '../../shared/runtime-paths.js';
import type { DocumentReading } from './read-document.js';
import type { ReaderReply, ReaderRequest } from './reader-messages.js';

// From the sources, a boot file that loads pdf.js and then tsx's loader; in a bundled worker, the reader's bundle.
const BOOT = moduleEntry('activities/documents/reader-boot.mjs', 'document-reader.mjs');

/** How often the child's resident memory is read while it reads a document. */
const WATCH_MS = 10;
/** A child not ready by then (loading the parsers takes seconds at most) is given up. */
const START_MS = 60_000;

/** The child's environment: what Node and the TypeScript loader need, no secret or Node option of the worker's. */
const ENV_KEPT = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];

export interface ReadBounds {
  timeoutMs: number;
  /** Resident bytes the child may add to what it holds idle (parsers loaded) while reading one document. */
  memoryBytes: number;
  signal?: AbortSignal;
}

export interface ReaderProcess {
  read(request: ReaderRequest, bounds: ReadBounds): Promise<DocumentReading>;
  /** False once the child exited or was killed: the pool starts another. */
  readonly alive: boolean;
  kill(): void;
}

/** The child's resident set in bytes (Linux /proc), or null where it cannot be read. */
export function residentBytes(pid: number | undefined): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : null;
  } catch {
    return null;
  }
}

/** Starts a child and resolves once its parsers are loaded (seconds under tsx: not part of any time limit). */
export async function startReaderProcess(heapMb: number): Promise<ReaderProcess> {
  const env = Object.fromEntries(ENV_KEPT.flatMap((k) => (process.env[k] ? [[k, process.env[k]]] : [])));
  const child = fork(BOOT, [], {
    // None of the worker's flags (its TypeScript loader, the test runner's): the boot file registers the loader.
    execArgv: [`--max-old-space-size=${heapMb}`],
    env,
    serialization: 'advanced',
    // Nothing it prints is ours to log: a parser's warnings, V8's report when a document ran it out of heap.
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`the document reader process did not start (${why})`));
    };
    const timer = setTimeout(() => fail(`not ready after ${START_MS} ms`), START_MS);
    const onExit = (code: number | null, signal: string | null) => fail(`exited: ${signal ?? code}`);
    child.once('exit', onExit);
    child.once('message', () => {
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve();
    });
  });
  return watched(child, residentBytes(child.pid) ?? 0);
}

function watched(child: ChildProcess, idleBytes: number): ReaderProcess {
  let alive = true;
  child.once('exit', () => {
    alive = false;
  });
  const kill = () => {
    alive = false;
    child.kill('SIGKILL');
  };

  function read(request: ReaderRequest, bounds: ReadBounds): Promise<DocumentReading> {
    if (bounds.signal?.aborted) return Promise.reject(cancelled());
    const limit = idleBytes + bounds.memoryBytes;
    return new Promise((resolve, reject) => {
      const end = (err: CategorizedError | null) => {
        clearInterval(watch);
        clearTimeout(timer);
        bounds.signal?.removeEventListener('abort', onAbort);
        child.off('message', onReply);
        child.off('exit', onExit);
        if (err) {
          kill();
          reject(err);
        }
      };
      const watch = setInterval(() => {
        if ((residentBytes(child.pid) ?? 0) > limit) end(overMemory(bounds.memoryBytes));
      }, WATCH_MS);
      const timer = setTimeout(() => end(overTime(bounds.timeoutMs)), bounds.timeoutMs);
      const onAbort = () => end(cancelled());
      const onExit = (code: number | null, signal: string | null) =>
        end(exited(code, signal, bounds.memoryBytes));
      const onReply = (reply: ReaderReply) => {
        if ('ready' in reply) return;
        end(null);
        if (reply.ok) resolve(reply.value);
        else {
          const { category, message, retryable, details } = reply.error;
          reject(new CategorizedError(category, message, retryable, details));
        }
        // What this document left allocated would count against the next one: start that on a fresh child.
        if ((residentBytes(child.pid) ?? 0) > idleBytes + bounds.memoryBytes / 2) kill();
      };
      bounds.signal?.addEventListener('abort', onAbort, { once: true });
      child.on('message', onReply);
      child.once('exit', onExit);
      // The child died before it got the document: the send fails.
      child.send(request, (err) => err && end(exited(child.exitCode, child.signalCode, bounds.memoryBytes)));
    });
  }

  return {
    read,
    get alive() {
      return alive;
    },
    kill,
  };
}

const cancelled = () => new CategorizedError('cancelled', 'the job was cancelled');

function overMemory(bytes: number): CategorizedError {
  const mb = Math.round(bytes / 2 ** 20);
  return new CategorizedError(
    'content_too_large',
    `reading the document needed more than the ${mb} MiB of memory a document may use (e.g. compressed streams or parts that unpack to more)`,
    false,
    { limit_bytes: bytes },
  );
}

function overTime(ms: number): CategorizedError {
  return new CategorizedError(
    'processing_timeout',
    `reading the document took longer than the HTML time limit (HTML_TIMEOUT_MS = ${ms} ms) and was stopped`,
    false,
    { limit_ms: ms },
  );
}

/** The child died on its own: out of heap (V8 aborts) or killed by the OS is a document too large. */
function exited(code: number | null, signal: string | null, bytes: number): CategorizedError {
  if (signal === 'SIGABRT' || signal === 'SIGKILL' || code === 134) return overMemory(bytes);
  return new CategorizedError(
    'unsupported_content',
    `the document could not be read (its reader stopped: ${signal ?? code})`,
    false,
    { reason: 'unreadable_document' },
  );
}
