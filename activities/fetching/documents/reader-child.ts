// The document reader's child process (started by reader-process.ts): it loads the parsers once, says it is
// ready, then reads one document per message. A hostile file may make pdf.js or a zip parser allocate far
// past what any filter check foresees, in memory no heap bound counts (ArrayBuffers); here that memory is this
// process's, which the parent measures and kills, so the worker that started it stays flat.
import { errorData } from '../../../shared/errors.js';
import { loadReader, readDocument } from './read-document.js';
import type { ReaderReply, ReaderRequest } from './reader-messages.js';

const send = (reply: ReaderReply) =>
  new Promise<void>((resolve) => {
    if (process.send) process.send(reply, undefined, {}, () => resolve());
    else resolve();
  });

async function answer(request: ReaderRequest): Promise<ReaderReply> {
  try {
    return { ok: true, value: await readDocument(request.body, request.file, request.limits) };
  } catch (err) {
    // Recursive parser code runs out of stack on input nested thousands deep.
    const error = errorData(err, 'the document is nested too deeply to read');
    if (error) return { ok: false, error };
    const message = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      error: {
        category: 'unsupported_content',
        message: `the document could not be read (${message})`,
        retryable: false,
        details: { reason: 'unreadable_document' },
      },
    };
  }
}

// One document at a time: the parent sends the next only after this one's answer.
process.on('message', (request: ReaderRequest) => {
  void answer(request).then(send);
});
// The worker that started this process is gone: nothing will read an answer.
process.on('disconnect', () => process.exit(0));

await Promise.all([loadReader('pdf'), loadReader('zip')]);
await send({ ready: true });
