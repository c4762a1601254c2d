// Response bodies written as their items are read, a batch at a time, so a job of 10,000 pages is never
// held whole in the API's memory. Fastify pipes the stream to the socket with backpressure: a slow client
// slows the reads instead of growing a buffer.
import { Readable } from 'node:stream';
import * as yaml from 'js-yaml';

export type Encoding = 'json' | 'jsonl' | 'yaml';

/** The items as a JSON array, JSON Lines (one item a line) or a YAML sequence, each item encoded as it comes. */
export function streamItems<T>(
  batches: AsyncIterable<readonly T[]>,
  encoding: Encoding,
  toJson: (item: T) => unknown,
): Readable {
  async function* chunks() {
    let count = 0;
    if (encoding === 'json') yield '[';
    for await (const batch of batches) {
      if (batch.length === 0) continue;
      const values = batch.map(toJson);
      if (encoding === 'yaml') yield yaml.dump(values, { noRefs: true, lineWidth: -1 });
      else if (encoding === 'jsonl') yield values.map((v) => `${JSON.stringify(v)}\n`).join('');
      else yield `${count === 0 ? '' : ','}${values.map((v) => JSON.stringify(v)).join(',')}`;
      count += batch.length;
    }
    if (encoding === 'json') yield ']';
    else if (encoding === 'yaml' && count === 0) yield '[]\n';
  }
  return Readable.from(chunks(), { objectMode: false });
}

/**
 * A JSON object whose one large member, an array, is streamed: `head` members first, then `key` with the
 * items, then the `tail` members, computed once every item was written (counts of what was sent).
 */
export function streamObject<T>(
  head: Record<string, unknown>,
  key: string,
  batches: AsyncIterable<readonly T[]>,
  toJson: (item: T) => unknown,
  tail: () => Record<string, unknown>,
): Readable {
  async function* chunks() {
    const opening = JSON.stringify(head);
    yield `${opening.slice(0, -1)}${opening.length > 2 ? ',' : ''}${JSON.stringify(key)}:[`;
    let first = true;
    for await (const batch of batches) {
      if (batch.length === 0) continue;
      yield `${first ? '' : ','}${batch.map((item) => JSON.stringify(toJson(item))).join(',')}`;
      first = false;
    }
    const closing = JSON.stringify(tail());
    yield `]${closing.length > 2 ? `,${closing.slice(1)}` : '}'}`;
  }
  return Readable.from(chunks(), { objectMode: false });
}
