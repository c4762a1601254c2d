// One-time passes over a database written by an earlier version, run by ensureIndexes when a process starts.
// Each runs once per database (its name is recorded in store_migrations when it has finished) and is
// idempotent, so two processes starting together may both run it harmlessly (the upsert race's duplicate key
// makes ensureIndexes run them again). These are the only reads of whole collections outside offline
// operator commands (scripts/admin.ts), and they happen once.
import type { Db } from 'mongodb';

/** The collections the migrations touch (mongo.ts's COLLECTIONS, passed in: this file imports no store). */
export interface MigratedCollections {
  apiKeys: string;
  apiKeyIndex: string;
  webhooks: string;
  webhookIndex: string;
  migrations: string;
}

interface Migration {
  name: string;
  run(db: Db, c: MigratedCollections): Promise<void>;
}

const MIGRATIONS: Migration[] = [
  {
    // API keys and saved webhooks were listed by a scan on tenant_id; now through a document per tenant.
    name: 'tenant-lists',
    async run(db, c) {
      const keys = db.collection<{ _id: string; id: string; tenant_id: string }>(c.apiKeys);
      for await (const key of keys.find({}, { projection: { _id: 1, id: 1, tenant_id: 1 } })) {
        await db
          .collection<{ _id: string }>(c.apiKeyIndex)
          .updateOne({ _id: key.tenant_id }, { $set: { [`keys.${key.id}`]: key._id } }, { upsert: true });
      }
      const webhooks = db.collection<{ _id: string; tenant_id: string }>(c.webhooks);
      for await (const hook of webhooks.find({}, { projection: { _id: 1, tenant_id: 1 } })) {
        await db
          .collection<{ _id: string; ids: string[] }>(c.webhookIndex)
          .updateOne({ _id: hook.tenant_id }, { $addToSet: { ids: hook._id } }, { upsert: true });
      }
    },
  },
];

export async function migrateStore(db: Db, c: MigratedCollections): Promise<void> {
  const done = db.collection<{ _id: string; at: string }>(c.migrations);
  for (const migration of MIGRATIONS) {
    if (await done.findOne({ _id: migration.name })) continue;
    await migration.run(db, c);
    await done.replaceOne({ _id: migration.name }, { at: new Date().toISOString() }, { upsert: true });
  }
}
