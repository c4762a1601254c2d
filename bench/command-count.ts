// Database commands counted through the driver's command monitoring, for every client this process connects
// after countCommands() is called (the API's and the in-process worker's): unlike time, a count does not
// depend on how busy the machine is. Each command is keyed by its name and collection.
import { type CommandStartedEvent, MongoClient } from 'mongodb';

export type CommandCounts = Map<MongoClient, Map<string, number>>;

const keyOf = (e: CommandStartedEvent) => `${e.commandName} ${String(e.command[e.commandName] ?? '')}`;

/** Starts counting: clients connected from now on report each command they start. */
export function countCommands(): CommandCounts {
  const counts: CommandCounts = new Map();
  const connect = MongoClient.prototype.connect;
  MongoClient.prototype.connect = function (this: MongoClient) {
    if (!counts.has(this)) {
      const mine = new Map<string, number>();
      counts.set(this, mine);
      // Read by the connection pool when connect() builds it.
      (this.options as { monitorCommands: boolean }).monitorCommands = true;
      this.on('commandStarted', (e) => mine.set(keyOf(e), (mine.get(keyOf(e)) ?? 0) + 1));
    }
    return connect.call(this);
  };
  return counts;
}

/** A copy of the counts now, to subtract later. */
export function snapshot(counts: CommandCounts): CommandCounts {
  return new Map([...counts].map(([client, byKey]) => [client, new Map(byKey)]));
}

/**
 * Commands per unit (e.g. per extract) since `before`, for each client named in `names` (others: "other"):
 * the total and the commands by name and collection, most frequent first.
 */
export function commandsPer(
  counts: CommandCounts,
  before: CommandCounts,
  units: number,
  names: Map<MongoClient, string>,
) {
  const out: Record<string, { total: number; by_command: Record<string, number> }> = {};
  for (const [client, byKey] of counts) {
    const name = names.get(client) ?? 'other';
    const entry = out[name] ?? { total: 0, by_command: {} };
    for (const [key, n] of byKey) {
      const delta = n - (before.get(client)?.get(key) ?? 0);
      if (delta <= 0) continue;
      entry.total += delta / units;
      entry.by_command[key] = (entry.by_command[key] ?? 0) + delta / units;
    }
    out[name] = entry;
  }
  const round = (n: number) => Number(n.toFixed(2));
  return Object.fromEntries(
    Object.entries(out).map(([name, { total, by_command }]) => [
      name,
      {
        total: round(total),
        by_command: Object.fromEntries(
          Object.entries(by_command)
            .sort((a, b) => b[1] - a[1])
            .map(([k, n]) => [k, round(n)]),
        ),
      },
    ]),
  );
}
