// Schema input through POST /api/v1/extract: every form is detected and reported in input_format and
// shapes the data; an unusable schema is a 422 whose errors[0].location points inside body.schema. Jobs run on the
// real workflows with fake activities (test/support/fake-activities.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fakeActivities, type PageTable, pageTable } from '../support/fake-activities.js';
import { html } from '../support/fixture-site.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
const site: PageTable = pageTable();
const fakes = fakeActivities({ pages: site.pages });

before(async () => {
  svc = await startTestService({ activities: fakes });
  site.route(
    '/product',
    html(
      'Blue Kettle',
      '<main><h1>Blue Kettle</h1><p>Price: 24.5</p><p>Brand: Acme</p>' +
        '<h2>Specs</h2><p>Weight: 1.2</p><p>Capacity: 1.7</p>' +
        '<h2>Tags</h2><ul><li>kitchen</li><li>steel</li></ul>' +
        '<h2>Offers</h2><ul><li>Seller: Shop A; Price: 20</li><li>Seller: Shop B; Price: 22</li></ul>' +
        '<p>A kettle that boils water quickly and quietly, with an automatic shut-off and a removable ' +
        'filter.</p></main>',
    ),
  );
});
after(async () => {
  await svc?.close();
});

const extract = (schema: unknown) =>
  svc.app.inject({
    method: 'POST',
    url: '/api/v1/extract',
    headers: svc.auth(),
    payload: { url: `${site.url}/product`, schema } as object,
  });

const EXPECTED = {
  name: 'Blue Kettle',
  price: 24.5,
  specs: { weight: 1.2 },
  tags: ['kitchen', 'steel'],
  offers: [
    { seller: 'Shop A', price: 20 },
    { seller: 'Shop B', price: 22 },
  ],
};

describe('schema input: good schemas', () => {
  test('a {field: type} map with nested objects and lists', async () => {
    const res = await extract({
      name: 'string',
      price: 'number',
      specs: { weight: 'number' },
      tags: ['string'],
      offers: [{ seller: 'string', price: 'number' }],
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().input_format, 'fields');
    assert.deepEqual(res.json().data, EXPECTED);
  });

  const STRUCTURED = [
    'name: product',
    'description: A product page',
    'required: [name]',
    'fields:',
    '  - name: name',
    '  - name: price',
    '    type: number',
    '    required: true',
    '  - name: specs',
    '    properties:',
    '      weight: number',
    '  - name: tags',
    '    type: array',
    '    items: string',
    '  - name: offers',
    '    type: array',
    '    items:',
    '      type: object',
    '      properties:',
    '        - name: seller',
    '        - name: price',
    '          type: number',
    '      required: [seller]',
  ].join('\n');

  test('a structured YAML schema with nested items/properties and both kinds of required', async () => {
    const res = await extract(STRUCTURED);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().input_format, 'structured');
    assert.deepEqual(res.json().data, EXPECTED);
    // The model was held to the required fields.
    const sent = JSON.stringify(fakes.asked.at(-1)?.schema);
    assert.match(sent, /"required":\["name","price"\]/);
  });

  test('the same schema as JSON text and as an object, fields given as a map', async () => {
    const schema = {
      name: 'product',
      fields: {
        name: { type: 'string', required: true },
        price: 'number',
        specs: { weight: 'number' },
        tags: 'string[]',
        offers: [{ seller: 'string', price: 'number' }],
      },
    };
    for (const input of [schema, JSON.stringify(schema)]) {
      const res = await extract(input);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().input_format, 'structured');
      assert.deepEqual(res.json().data, EXPECTED);
    }
  });

  test('a free-form prompt, including YAML-shaped prose', async () => {
    for (const prompt of ['What is this product called?', 'Extract: the product name']) {
      const res = await extract(prompt);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().input_format, 'prompt');
      assert.deepEqual(res.json().data, { answer: 'Blue Kettle' });
    }
  });
});

describe('schema input: unusable schemas are 422s that say where', () => {
  const cases: { why: string; schema: unknown; location: string; message: RegExp }[] = [
    {
      why: 'a misspelt type in a map (not a prompt)',
      schema: { name: 'string', price: 'nubmer' },
      location: 'body.schema.price',
      message: /^unknown type "nubmer"; valid types: string, number, integer, boolean, array, object/,
    },
    {
      why: 'a description where a type belongs',
      schema: { name: 'string', price: 'the price with currency' },
      location: 'body.schema.price',
      message: /unknown type/,
    },
    {
      why: 'a misspelt type in a nested list of objects',
      schema: { offers: [{ seller: 'string', price: 'nubmer' }] },
      location: 'body.schema.offers.0.price',
      message: /unknown type "nubmer"/,
    },
    {
      why: 'a misspelt type in a structured list',
      schema: { name: 'p', fields: [{ name: 'a' }, { name: 'b' }, { name: 'c', type: 'nubmer' }] },
      location: 'body.schema.fields.2.type',
      message: /unknown type "nubmer"/,
    },
    {
      why: 'a misspelt type in structured YAML text',
      schema: 'name: p\nfields:\n  - name: a\n    type: nubmer\n',
      location: 'body.schema.fields.0.type',
      message: /unknown type "nubmer"/,
    },
    {
      why: 'a misspelt type in JSON text',
      schema: '{"title": "string", "price": "nubmer"}',
      location: 'body.schema.price',
      message: /unknown type "nubmer"/,
    },
    {
      why: 'a required list naming no field',
      schema: { name: 'p', fields: [{ name: 'a' }], required: ['b'] },
      location: 'body.schema.required.0',
      message: /names no field/,
    },
    {
      why: 'a misspelt key of a field definition',
      schema: { name: 'p', fields: [{ name: 'a', requried: true }] },
      location: 'body.schema.fields.0.requried',
      message: /unknown key/,
    },
    {
      why: 'an empty object',
      schema: {},
      location: 'body.schema',
      message: /names no field/,
    },
    {
      why: 'broken JSON text',
      schema: '{"title": "string"',
      location: 'body.schema',
      message: /looks like JSON but does not parse/,
    },
    {
      why: 'more than 200 fields',
      schema: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`f${i}`, 'string'])),
      location: 'body.schema.f200',
      message: /more than 200 fields/,
    },
    {
      why: 'nesting deeper than 5 levels',
      schema: { a: { b: { c: { d: { e: { f: 'string' } } } } } },
      location: 'body.schema.a.b.c.d.e.f',
      message: /deeper than 5 levels/,
    },
    {
      why: 'a text larger than 20 kB',
      schema: `Extract ${'the title and '.repeat(2000)}`,
      location: 'body.schema',
      message: /larger than 20 kB/,
    },
  ];

  for (const c of cases) {
    test(c.why, async () => {
      const before = svc.llm.requests.length;
      const res = await extract(c.schema);
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      const problem = res.json();
      assert.equal(problem.type, '/problems/validation-error');
      assert.match(problem.detail, /^The schema cannot be used: /);
      assert.equal(problem.errors.length, 1);
      assert.equal(problem.errors[0].location, c.location);
      assert.match(problem.errors[0].message, c.message);
      assert.equal(problem.job_id, undefined, 'no job is started for an unusable schema');
      assert.equal(svc.llm.requests.length, before, 'the model is never asked');
    });
  }

  test('the offending value is echoed back', async () => {
    const res = await extract({ title: 'string', price: 'nubmer' });
    assert.equal(res.json().errors[0].value, 'nubmer');
  });
});
