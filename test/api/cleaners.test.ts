// GET /api/v1/cleaners and the validation of cleaner_chain on POST /api/v1/extract (both from the one
// catalogue in shared/cleaners.ts). No worker: a refused request never starts a job.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { describeCleaners } from '../../shared/cleaners.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;

before(async () => {
  svc = await startTestService({ worker: false });
});
after(async () => svc?.close());

const PROBLEM = 'application/problem+json; charset=utf-8';

function extract(cleanerChain: unknown, apiKey?: string) {
  return svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(apiKey),
    payload: { url: 'https://shop.example/widget', schema: { title: 'string' }, cleaner_chain: cleanerChain },
  });
}

describe('GET /api/v1/cleaners', () => {
  test('lists every cleaner with its options, types and defaults', async () => {
    const res = await svc.app.inject({ url: '/api/v1/cleaners', headers: svc.auth() });
    assert.equal(res.statusCode, 200, res.body);
    const { cleaners } = res.json();
    assert.deepEqual(cleaners, JSON.parse(JSON.stringify(describeCleaners())));
    assert.deepEqual(cleaners.map((c: { name: string }) => c.name).sort(), [
      'html',
      'markdown',
      'noop',
      'readability',
      'text',
    ]);
    const markdown = cleaners.find((c: { name: string }) => c.name === 'markdown');
    assert.equal(markdown.default, true);
    assert.deepEqual(
      markdown.options.find((o: { name: string }) => o.name === 'include_links'),
      {
        name: 'include_links',
        type: 'boolean',
        default: true,
        description: markdown.options.find((o: { name: string }) => o.name === 'include_links').description,
      },
    );
  });

  test('another tenant sees the same list', async () => {
    const other = await svc.newTenant('other-cleaners');
    const res = await svc.app.inject({ url: '/api/v1/cleaners', headers: svc.auth(other.apiKey) });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().cleaners.length, 5);
  });

  test('needs a key', async () => {
    const res = await svc.app.inject({ url: '/api/v1/cleaners' });
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['content-type'], PROBLEM);
  });

  test('is in the OpenAPI document, and so are the cleaner steps extract takes', async () => {
    const doc = (await svc.app.inject({ url: '/api/v1/openapi.json' })).json();
    assert.ok(doc.paths['/api/v1/cleaners']?.get, 'GET /api/v1/cleaners is documented');
    const schemas = Object.keys(doc.components.schemas);
    for (const id of ['CleanerList', 'CleanerStep', 'MarkdownCleanerStep', 'ReadabilityCleanerStep'])
      assert.ok(schemas.includes(id), id);
  });
});

describe('POST /api/v1/extract with a bad cleaner_chain', () => {
  async function problem(chain: unknown) {
    const res = await extract(chain);
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.headers['content-type'], PROBLEM);
    return res.json() as { detail: string; errors: { location: string; message: string; value?: unknown }[] };
  }

  test('a bad option is a 422 naming the option', async () => {
    const p = await problem([{ name: 'markdown', options: { remove_selectors: 'nav' } }]);
    assert.equal(p.errors[0]!.location, 'body.cleaner_chain.0.options.remove_selectors');
    assert.equal(p.errors[0]!.value, 'nav');
  });

  test('an invalid CSS selector is a 422 naming the selector', async () => {
    const p = await problem([
      { name: 'readability' },
      { name: 'text', options: { keep_selectors: ['a', 'div['] } },
    ]);
    assert.deepEqual(p.errors, [
      {
        location: 'body.cleaner_chain.1.options.keep_selectors.1',
        message: 'not a valid CSS selector',
        value: 'div[',
      },
    ]);
  });

  test('an unknown cleaner is a 422 naming it and listing the known ones', async () => {
    const p = await problem([{ name: 'markdown' }, { name: 'sparkle' }]);
    assert.equal(p.errors[0]!.location, 'body.cleaner_chain.1.name');
    assert.equal(p.errors[0]!.value, 'sparkle');
    assert.match(p.errors[0]!.message, /markdown, readability, text, html, noop/);
  });

  test('an option the cleaner does not take is a 422 naming it', async () => {
    const p = await problem([{ name: 'noop', options: { include_links: true } }]);
    assert.equal(p.errors[0]!.location, 'body.cleaner_chain.0.options.include_links');
    assert.equal(p.errors[0]!.message, 'unknown field');
  });

  test('an empty chain is a 422', async () => {
    const p = await problem([]);
    assert.equal(p.errors[0]!.location, 'body.cleaner_chain');
  });
});
