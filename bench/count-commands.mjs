// Preloaded into the bench's worker with BENCH_DB_COUNTS=file (node --import): counts the worker's database
// commands by kind (command name and collection, a job's seen-set as `crawl_urls_*`) with the bytes each sent,
// and writes the tally to `file` every second, where bench/crawl.ts reads it before and after the measured
// crawl. Plain JavaScript, so the worker's bundle runs without a TypeScript loader; off unless asked for (the
// command monitoring costs CPU of its own).
import { renameSync, writeFileSync } from 'node:fs';
import { BSON, MongoClient } from 'mongodb';

const file = process.env.BENCH_DB_COUNTS;
// The worker's own child processes (the document reader) inherit its options, not the tally.
delete process.env.BENCH_DB_COUNTS;
if (file) {
  /** `command collection` → [commands, documents, bytes]. */
  const tally = {};
  const connect = MongoClient.prototype.connect;
  MongoClient.prototype.connect = function counted(...args) {
    if (!this.monitorCommands) {
      this.monitorCommands = true;
      this.on('commandStarted', (e) => {
        const target = e.command[e.commandName];
        const collection = typeof target === 'string' ? target.replace(/^crawl_urls_.*/, 'crawl_urls_*') : '';
        const docs = e.command.documents ?? e.command.updates ?? e.command.deletes ?? [];
        const key = `${e.commandName} ${collection}`.trim();
        tally[key] ??= [0, 0, 0];
        const row = tally[key];
        row[0]++;
        row[1] += docs.length;
        row[2] += BSON.calculateObjectSize(e.command);
      });
    }
    return connect.apply(this, args);
  };
  // Written whole, then renamed: the bench never reads half a tally.
  setInterval(() => {
    writeFileSync(`${file}.part`, JSON.stringify(tally));
    renameSync(`${file}.part`, file);
  }, 1000).unref();
}
