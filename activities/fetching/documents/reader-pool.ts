// The worker's document readers: one or two long-lived child processes (reader-process.ts), each reading one
// document at a time. A child starts on the first document it is needed for (most workers never read one)
// and is kept warm; one that was killed (memory, time, cancellation) or left bloated is replaced on the next
// document. Documents wait their turn here; the time limit starts when a ready child takes one.
import { CategorizedError } from '../../../shared/errors.js';
import type { DocumentReading } from './read-document.js';
import type { ReaderRequest } from './reader-messages.js';
import { type ReadBounds, type ReaderProcess, startReaderProcess } from './reader-process.js';

export interface ReaderPoolOptions {
  /** Children at most (each holds the parsers, ~150 MB resident idle). */
  size: number;
  timeoutMs: number;
  /** Resident bytes a child may add while reading one document. */
  memoryBytes: number;
}

export interface ReaderPool {
  read(request: ReaderRequest, signal?: AbortSignal): Promise<DocumentReading>;
  close(): Promise<void>;
}

interface Slot {
  child: Promise<ReaderProcess> | null;
  busy: boolean;
}

export function createReaderPool(options: ReaderPoolOptions): ReaderPool {
  const slots: Slot[] = Array.from({ length: options.size }, () => ({ child: null, busy: false }));
  const waiting: (() => void)[] = [];
  let closed = false;
  // The heap alone may not take what the resident bound allows: V8 stops the child first if it would.
  const heapMb = Math.ceil(options.memoryBytes / 2 ** 20) + 64;

  async function take(signal?: AbortSignal): Promise<Slot> {
    for (;;) {
      if (closed) throw new Error('the document readers are closed');
      if (signal?.aborted) throw new CategorizedError('cancelled', 'the job was cancelled');
      const slot = slots.find((s) => !s.busy);
      if (slot) {
        slot.busy = true;
        return slot;
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal?.removeEventListener('abort', wake);
          resolve();
        };
        waiting.push(wake);
        signal?.addEventListener('abort', wake, { once: true });
      });
    }
  }

  function give(slot: Slot): void {
    slot.busy = false;
    // Every waiter looks again: one whose job was cancelled meanwhile must not swallow the turn.
    for (const wake of waiting.splice(0)) wake();
  }

  async function childOf(slot: Slot): Promise<ReaderProcess> {
    const current = await slot.child?.catch(() => null);
    if (current?.alive) return current;
    slot.child = startReaderProcess(heapMb);
    return slot.child;
  }

  async function read(request: ReaderRequest, signal?: AbortSignal): Promise<DocumentReading> {
    const slot = await take(signal);
    try {
      const child = await childOf(slot);
      const bounds: ReadBounds = { timeoutMs: options.timeoutMs, memoryBytes: options.memoryBytes, signal };
      return await child.read(request, bounds);
    } finally {
      give(slot);
    }
  }

  async function close(): Promise<void> {
    closed = true;
    for (const wake of waiting.splice(0)) wake();
    await Promise.all(slots.map(async (slot) => (await slot.child?.catch(() => null))?.kill()));
  }

  return { read, close };
}
