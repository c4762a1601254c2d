// The default cleaner chain follows the schema: link targets and image URLs reach the model only when a field
// (or the prompt) asks for them; the prompt names the format the chain produced.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { type FixtureSite, html, startFixtureSite } from '../../support/fixture-site.js';
import { startTestService, type TestService } from '../../support/service.js';

let svc: TestService;
let site: FixtureSite;

before(async () => {
  svc = await startTestService();
  site = await startFixtureSite();
  site.route(
    '/article',
    html(
      'Kettles',
      '<main><h1>Kettles</h1><p>Read the <a href="/guide/kettles">kettle guide</a> first.</p>' +
        '<img src="/img/kettle.jpg" alt="A kettle"><p>Prices start at $24.</p></main>',
    ),
  );
});
after(async () => {
  await site?.close();
  await svc?.close();
});
beforeEach(() => svc.llm.reset());

async function promptFor(payload: object): Promise<string> {
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { url: `${site.url}/article`, ...payload },
  });
  assert.equal(res.statusCode, 200, res.body);
  const body = svc.llm.requests.at(-1)?.body as { messages: { role: string; content: string }[] };
  return body.messages.find((m) => m.role === 'user')?.content ?? '';
}

describe('default cleaner chain', () => {
  test('a schema that names no link or image: the page without their URLs, as markdown', async () => {
    const prompt = await promptFor({ schema: { title: 'string', price: 'number' } });
    assert.match(prompt, /Page content \(markdown\)/);
    assert.match(prompt, /kettle guide/);
    assert.doesNotMatch(prompt, /\/guide\/kettles/);
    assert.doesNotMatch(prompt, /kettle\.jpg/);
  });

  test('a field asking for a link or an image keeps their URLs', async () => {
    const links = await promptFor({ schema: { title: 'string', guide_url: 'string' } });
    assert.match(links, /\/guide\/kettles/);
    const images = await promptFor({ schema: { title: 'string', image: 'string' } });
    assert.match(images, /kettle\.jpg/);
  });

  test('a chain given by the caller is used as given, and the prompt names its format', async () => {
    const prompt = await promptFor({ schema: { title: 'string' }, cleaner_chain: [{ name: 'text' }] });
    assert.match(prompt, /Page content \(text\)/);
    const crawled = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/extract',
      headers: svc.auth(),
      payload: { url: `${site.url}/article`, schema: { title: 'string' } },
    });
    assert.equal(typeof crawled.json().metadata.clean_duration_ms, 'number');
  });
});
