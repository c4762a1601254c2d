// The budget ledger on the real document store: reservations are atomic per
// account, refusals take back what they reserved, settling swaps the reservation for the actual spend; the
// guard prices a call's worst case as the job pays it; a budget's refusal never falls back along the chain.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { makeBudgetGuard } from '../../activities/extraction/budget-guard.js';
import { shouldFallBack } from '../../activities/extraction/llm/chain.js';
import type { ActivityDeps } from '../../activities/fetching/deps.js';
import { loadConfig } from '../../shared/config.js';
import { CategorizedError } from '../../shared/errors.js';
import { priceOf } from '../../shared/pricing.js';
import { type Account, BudgetLedger, jobAccount, tenantAccount } from '../../shared/store/budgets.js';
import { connectMongo, type Mongo } from '../../shared/store/mongo.js';
import { TenantStore } from '../../shared/store/tenants.js';
import { type InfraHandle, useInfra } from '../support/service.js';

let infra: InfraHandle;
let mongo: Mongo;
let ledger: BudgetLedger;

before(async () => {
  infra = await useInfra();
  mongo = await connectMongo(infra.mongoUri, `test_budgets_${randomUUID().slice(0, 8)}`);
  ledger = new BudgetLedger(mongo.db);
});
after(async () => {
  await mongo?.db.dropDatabase().catch(() => undefined);
  await mongo?.close();
  await infra?.stop();
});

const usdCap = (id: string, max: number): Account => ({
  id,
  limits: { usd: { max, budget: 'max_cost_usd' } },
});

describe('budget ledger', () => {
  test('a reservation within the limit is held; settling swaps it for the actual spend', async () => {
    const id = jobAccount(randomUUID());
    const held = await ledger.reserve([usdCap(id, 1)], { usd: 0.4, tokens: 500 });
    assert.ok(!('refused' in held));
    assert.deepEqual(held.accounts, [id]);
    let doc = await ledger.get(id);
    assert.equal(doc?.reserved_usd, 0.4);
    assert.equal(doc?.reserved_tokens, 500);
    await ledger.settle(held, { usd: 0.1, tokens: 120 });
    doc = await ledger.get(id);
    assert.equal(doc?.reserved_usd, 0);
    assert.equal(doc?.reserved_tokens, 0);
    assert.equal(doc?.spent_usd, 0.1);
    assert.equal(doc?.spent_tokens, 120);
  });

  test('a call whose worst case could pass the limit is refused, naming the budget, and reserves nothing', async () => {
    const id = jobAccount(randomUUID());
    const first = await ledger.reserve([usdCap(id, 1)], { usd: 0.6, tokens: 0 });
    assert.ok(!('refused' in first));
    await ledger.settle(first, { usd: 0.5, tokens: 0 });
    const second = await ledger.reserve([usdCap(id, 1)], { usd: 0.6, tokens: 0 });
    assert.ok('refused' in second);
    assert.deepEqual(second.refused, {
      budget: 'max_cost_usd',
      limit: 1,
      spent: 0.5,
      reserved: 0,
      asked: 0.6,
    });
    const doc = await ledger.get(id);
    assert.equal(doc?.reserved_usd, 0);
    assert.equal(doc?.spent_usd, 0.5);
    // What still fits is admitted.
    assert.ok(!('refused' in (await ledger.reserve([usdCap(id, 1)], { usd: 0.5, tokens: 0 }))));
  });

  test('concurrent reservations never admit more than the limit holds', async () => {
    const id = jobAccount(randomUUID());
    const tries = await Promise.all(
      Array.from({ length: 12 }, () => ledger.reserve([usdCap(id, 1)], { usd: 0.3, tokens: 0 })),
    );
    const admitted = tries.filter((t) => !('refused' in t)).length;
    assert.equal(admitted, 3);
    const doc = await ledger.get(id);
    assert.ok(Math.abs((doc?.reserved_usd ?? -1) - admitted * 0.3) < 1e-9, String(doc?.reserved_usd));
  });

  test('a token cap refuses as max_tokens', async () => {
    const id = jobAccount(randomUUID());
    const account: Account = { id, limits: { tokens: { max: 1000, budget: 'max_tokens' } } };
    const held = await ledger.reserve([account], { usd: 0, tokens: 1001 });
    assert.ok('refused' in held);
    assert.equal(held.refused.budget, 'max_tokens');
    assert.equal((await ledger.get(id))?.reserved_tokens, 0);
  });

  test('a refusal on a later account takes back the reservation on the earlier ones', async () => {
    const job = jobAccount(randomUUID());
    const tenant = tenantAccount(randomUUID());
    const accounts: Account[] = [
      usdCap(job, 10),
      { id: tenant, limits: { usd: { max: 0.2, budget: 'tenant_monthly_usd' } } },
    ];
    const held = await ledger.reserve(accounts, { usd: 0.5, tokens: 10 });
    assert.ok('refused' in held);
    assert.equal(held.refused.budget, 'tenant_monthly_usd');
    assert.equal((await ledger.get(job))?.reserved_usd, 0);
    assert.equal((await ledger.get(tenant))?.reserved_usd, 0);
  });

  test('an account without limits only records (a tenant month without a budget)', async () => {
    const tenant = tenantAccount('ten_x', new Date('2026-03-15T00:00:00Z'));
    assert.equal(tenant, 'tenant:ten_x:2026-03');
    const held = await ledger.reserve([{ id: tenant, limits: {} }], { usd: 99, tokens: 1e6 });
    assert.ok(!('refused' in held));
    await ledger.release(held);
    const doc = await ledger.get(tenant);
    assert.equal(doc?.reserved_usd, 0);
    assert.equal(doc?.spent_usd, 0);
  });
});

describe('budget guard', () => {
  const entry = (isByok: boolean) => ({
    provider: 'openai',
    model: 'gpt-4o-mini',
    maxTokens: 1000,
    temperature: 0,
    position: 0,
    isByok,
  });
  const guardFor = (markup: string) => {
    const config = loadConfig({ PRICE_MARKUP: markup });
    const deps = { config, budgets: ledger, tenants: new TenantStore(mongo.db) } as unknown as ActivityDeps;
    return makeBudgetGuard(deps);
  };

  test("reserves the worst case as the job pays it: marked up on the service's keys, list price on BYOK", async () => {
    // 4000 prompt characters at 2 a token + the whole max output.
    const worst = priceOf('gpt-4o-mini', 2000, 1000, 'openai').llm_cost_usd;
    for (const [isByok, expected] of [
      [false, worst * 2],
      [true, worst],
    ] as const) {
      const jobId = randomUUID();
      const hold = await guardFor('1').reserve(
        { jobId, tenantId: 'ten_guard', budget: { maxCostUsd: 1 } },
        entry(isByok),
        4000,
      );
      const doc = await ledger.get(jobAccount(jobId));
      assert.ok(Math.abs((doc?.reserved_usd ?? 0) - expected) < 1e-9, `${isByok}: ${doc?.reserved_usd}`);
      assert.equal(doc?.reserved_tokens, 3000);
      await hold.settle(100, 10);
      const settled = await ledger.get(jobAccount(jobId));
      assert.equal(settled?.reserved_usd, 0);
      assert.equal(settled?.spent_tokens, 110);
    }
  });

  test('a refusal is a non-retryable quota_exceeded naming the budget, and does not fall back', async () => {
    const err = await guardFor('0')
      .reserve(
        { jobId: randomUUID(), tenantId: 'ten_guard', budget: { maxTokens: 2500 } },
        entry(false),
        4000,
      )
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(err instanceof CategorizedError);
    assert.equal(err.category, 'quota_exceeded');
    assert.equal(err.retryable, false);
    assert.equal(err.details?.budget, 'max_tokens');
    assert.match(err.message, /max_tokens \(2500 tokens\)/);
    assert.equal(shouldFallBack(err.category, err.details), false);
    // A provider's own quota error still falls through to the next model.
    assert.equal(shouldFallBack('quota_exceeded', { status: 429 }), true);
  });
});
