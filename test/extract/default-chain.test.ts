// The default cleaner chain follows the schema: link targets and image URLs reach the model only when a field
// (or the prompt) asks for them; the model is told the format the chain produced (the prompt names it:
// test/unit/extract-with-model.test.ts). Jobs run on the real workflows with fake activities over a page
// table (test/support/fake-activities.ts): what the model was sent is what the fake model recorded.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeAsked, fakeActivities, type PageTable, pageTable } from '../support/fake-activities.js';
import { html } from '../support/fixture-site.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
const site: PageTable = pageTable();
const fakes = fakeActivities({ pages: site.pages });
site.route(
  '/article',
  html(
    'Kettles',
    '<main><h1>Kettles</h1><p>Read the <a href="/guide/kettles">kettle guide</a> first.</p>' +
      '<img src="/img/kettle.jpg" alt="A kettle"><p>Prices start at $24.</p></main>',
  ),
);

before(async () => {
  svc = await startTestService({ activities: fakes });
});
after(async () => {
  await svc?.close();
});

/** Extracts the article and returns what the model was asked for it. */
async function askedFor(payload: object): Promise<FakeAsked> {
  const before = fakes.asked.length;
  const res = await svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { url: `${site.url}/article`, ...payload },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(fakes.asked.length, before + 1, 'the model was asked once');
  return fakes.asked.at(-1) as FakeAsked;
}

describe('default cleaner chain', () => {
  test('a schema that names no link or image: the page without their URLs, as markdown', async () => {
    const asked = await askedFor({ schema: { title: 'string', price: 'number' } });
    assert.equal(asked.format, 'markdown');
    assert.match(asked.body, /kettle guide/);
    assert.doesNotMatch(asked.body, /\/guide\/kettles/);
    assert.doesNotMatch(asked.body, /kettle\.jpg/);
  });

  test('a field asking for a link or an image keeps their URLs', async () => {
    const links = await askedFor({ schema: { title: 'string', guide_url: 'string' } });
    assert.match(links.body, /\/guide\/kettles/);
    const images = await askedFor({ schema: { title: 'string', image: 'string' } });
    assert.match(images.body, /kettle\.jpg/);
  });

  test('a chain given by the caller is used as given, and the model is told its format', async () => {
    const asked = await askedFor({ schema: { title: 'string' }, cleaner_chain: [{ name: 'text' }] });
    assert.equal(asked.format, 'text');
    const crawled = await svc.app.inject({
      method: 'POST',
      url: '/api/v1/extract',
      headers: svc.auth(),
      payload: { url: `${site.url}/article`, schema: { title: 'string' } },
    });
    assert.equal(typeof crawled.json().metadata.clean_duration_ms, 'number');
  });
});
