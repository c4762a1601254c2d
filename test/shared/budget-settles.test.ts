// Model calls that end together settle on their account in one write, and nothing of any of them is lost;
// a month without a budget is charged when its calls end, not reserved before.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type Db, MongoClient } from 'mongodb';
import { type Account, BudgetLedger, jobAccount, tenantAccount } from '../../shared/store/budgets.js';
import { type InfraHandle, useInfra } from '../support/service.js';

let infra: InfraHandle;
let client: MongoClient;
let db: Db;
let writes = 0;

before(async () => {
  infra = await useInfra();
  client = new MongoClient(infra.mongoUri, { monitorCommands: true });
  await client.connect();
  db = client.db(`test_settles_${randomUUID().slice(0, 8)}`);
  client.on('commandStarted', (e) => {
    if (e.commandName === 'findAndModify') writes++;
  });
});
after(async () => {
  await db?.dropDatabase().catch(() => undefined);
  await client?.close();
  await infra?.stop();
});

test('calls ending together settle in fewer writes, every spend and reservation accounted for', async () => {
  const ledger = new BudgetLedger(db);
  const job = jobAccount(randomUUID());
  const month = tenantAccount(randomUUID());
  const accounts: Account[] = [
    { id: job, limits: { usd: { max: 100, budget: 'max_cost_usd' } } },
    { id: month, limits: {} },
  ];
  writes = 0;
  const held = await Promise.all(
    Array.from({ length: 12 }, () => ledger.reserve(accounts, { usd: 0.5, tokens: 100 })),
  );
  // Only the account with a limit is reserved on.
  assert.equal(writes, 12);
  assert.equal(await ledger.get(month), null);
  writes = 0;
  await Promise.all(
    held.map((h) => {
      assert.ok(!('refused' in h));
      return ledger.settle(h, { usd: 0.25, tokens: 40 });
    }),
  );
  assert.ok(writes < 24, `${writes} writes for 24 settles`);
  for (const id of [job, month]) {
    const doc = await ledger.get(id);
    assert.ok(Math.abs((doc?.spent_usd ?? 0) - 3) < 1e-9, `${id}: ${doc?.spent_usd}`);
    assert.equal(doc?.spent_tokens, 480);
    assert.ok(Math.abs(doc?.reserved_usd ?? 1) < 1e-9);
    assert.equal(doc?.reserved_tokens, 0);
  }
});
