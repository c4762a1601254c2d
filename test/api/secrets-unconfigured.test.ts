// A service started without SECRETS_KEY runs; storing a secret answers a clear 503 problem and stores nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;

before(async () => {
  svc = await startTestService({ worker: false, env: { SECRETS_KEY: '' } });
});
after(async () => svc?.close());

const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  svc.app.inject({ method, url: `/api/v1${url}`, headers: svc.auth(), payload });

test('a webhook secret without SECRETS_KEY is a 503 problem naming the setting; nothing is saved', async () => {
  const res = await call('POST', '/webhooks', {
    name: 'signed',
    url: 'https://hooks.example.com/in',
    secret: 's3cret-value',
    events: ['job.completed'],
    is_active: true,
  });
  assert.equal(res.statusCode, 503, res.body);
  assert.match(res.headers['content-type'] as string, /^application\/problem\+json/);
  assert.match(res.json().detail, /SECRETS_KEY/);
  assert.ok(!res.body.includes('s3cret-value'));
  assert.deepEqual((await call('GET', '/webhooks')).json().webhooks, []);
});

test('an unsigned webhook still works without SECRETS_KEY', async () => {
  const res = await call('POST', '/webhooks', {
    name: 'plain',
    url: 'https://hooks.example.com/in',
    is_active: true,
  });
  assert.equal(res.statusCode, 201, res.body);
});

test('a provider key without SECRETS_KEY is a 503 problem, not a crash', async () => {
  const res = await call('PUT', '/llm/keys', {
    provider: 'openai',
    api_key: 'sk-abcdefabcdef123456',
    is_enabled: true,
  });
  assert.equal(res.statusCode, 503, res.body);
  assert.match(res.json().detail, /SECRETS_KEY/);
  assert.ok(!res.body.includes('sk-abcdefabcdef123456'));
});
