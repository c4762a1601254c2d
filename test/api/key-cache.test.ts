// An API process reuses a key's lookup for API_KEY_CACHE_MS (shared/store/tenants.ts): no read to
// authenticate a request, while a key deleted or changed through this process is refused or changed at once,
// one deleted by another process within API_KEY_CACHE_MS, and an expired key at its expiry whatever is cached.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type CommandStartedEvent, MongoClient } from 'mongodb';
import { TenantStore } from '../../shared/store/tenants.js';
import { startTestService, type TestService } from '../support/service.js';

const CACHE_MS = 400;
let svc: TestService;

before(async () => {
  svc = await startTestService({
    worker: false,
    env: {
      API_KEY_CACHE_MS: String(CACHE_MS),
      PRICING_TIERS: JSON.stringify({
        free: { rate_limit_per_minute: 500 },
        pro: { rate_limit_per_minute: 900 },
      }),
      DEFAULT_PRICING_TIER: 'pro',
    },
  });
});
after(async () => svc?.close());

const listKeys = (key: string) =>
  svc.app.inject({ method: 'GET', url: '/api/v1/keys', headers: svc.auth(key) });

test('a key used again within API_KEY_CACHE_MS is not read again', async () => {
  const { apiKey } = await svc.newTenant('cached');
  const reads: string[] = [];
  const client = new MongoClient(svc.config.MONGODB_URI, { monitorCommands: true });
  // A second TenantStore on a monitored client, with the service's cache time, answers as the API's does.
  client.on('commandStarted', (e: CommandStartedEvent) => {
    if (e.commandName === 'find') reads.push(String(e.command.find));
  });
  try {
    await client.connect();
    const tenants = new TenantStore(client.db(svc.config.MONGODB_DB), CACHE_MS);
    assert.ok(await tenants.findByKey(apiKey));
    assert.deepEqual(reads, ['api_keys', 'tenants']);
    assert.ok(await tenants.findByKey(apiKey));
    assert.deepEqual(reads, ['api_keys', 'tenants'], 'the second lookup reads nothing');
    await sleep(CACHE_MS + 50);
    assert.ok(await tenants.findByKey(apiKey));
    assert.deepEqual(reads, ['api_keys', 'tenants', 'api_keys', 'tenants'], 'read again once too old');
    assert.equal(await tenants.findByKey(`${apiKey}x`), null);
  } finally {
    await client.close();
  }
});

test('a key deleted through this process is refused at once', async () => {
  const { tenantId } = await svc.newTenant('deleting');
  const { key, doc } = await svc.deps.tenants.createKey(tenantId, 'doomed');
  assert.equal((await listKeys(key)).statusCode, 200);
  const deleted = await svc.app.inject({
    method: 'DELETE',
    url: `/api/v1/keys/${doc.id}`,
    headers: svc.auth(key),
  });
  assert.equal(deleted.statusCode, 204, deleted.body);
  assert.equal((await listKeys(key)).statusCode, 401);
});

test('a key deleted by another process is refused within API_KEY_CACHE_MS', async () => {
  const { tenantId } = await svc.newTenant('elsewhere');
  const { key, doc } = await svc.deps.tenants.createKey(tenantId, 'doomed');
  assert.equal((await listKeys(key)).statusCode, 200);
  // Another process's store: this process learns of the deletion only from the database.
  assert.equal(await new TenantStore(svc.mongo.db).deleteKey(tenantId, doc.id), true);
  const deadline = Date.now() + CACHE_MS + 100;
  let status = (await listKeys(key)).statusCode;
  while (status === 200 && Date.now() < deadline) {
    await sleep(25);
    status = (await listKeys(key)).statusCode;
  }
  assert.equal(status, 401);
});

test("a tenant's tier changed through this process applies to its next request", async () => {
  const { tenantId, apiKey } = await svc.newTenant('moving');
  const tier = async () =>
    (await svc.app.inject({ method: 'GET', url: '/api/v1/pricing/tiers', headers: svc.auth(apiKey) })).json()
      .your_tier.tier;
  assert.equal(await tier(), 'pro');
  await svc.deps.tenants.setTier(tenantId, 'free');
  assert.equal(await tier(), 'free');
});

test('an expiring key is refused at its expiry even while its lookup is kept', async () => {
  const { tenantId } = await svc.newTenant('expiring');
  const long = new TenantStore(svc.mongo.db, 60_000);
  const expiresAt = new Date(Date.now() + 60_000).toISOString();
  const { key } = await long.createKey(tenantId, 'short', { expires_at: expiresAt });
  assert.ok(await long.findByKey(key));
  assert.equal(await long.findByKey(key, new Date(Date.parse(expiresAt) + 1)), null);
});
