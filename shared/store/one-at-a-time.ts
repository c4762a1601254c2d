// One key's work at a time in this process. FerretDB applies an update as a read and a write without a
// transaction, so concurrent updates of one document can be lost (measured: 12 parallel `$inc`s on one
// ledger account admitted 5 reservations where 3 fitted). Stores that update a hot document chain the
// updates of each key here; on MongoDB they are atomic anyway.
export class OneAtATime {
  /** Per key, the end of the chain of its work. */
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs fn after all work this process started earlier for the key (whether that work failed or not). */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.tails.get(key) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return run;
  }
}
