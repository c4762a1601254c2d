// Schema input: the three formats, their detection order (decisions.md "Schemas and cleaning"), the
// JSON Schema the model is held to, and the 422-worthy errors.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { CategorizedError } from '../../shared/errors.js';
import { normalizeSchema, toJsonSchema } from '../../shared/schema-input.js';

/** Asserts an `invalid_input` error whose message matches `why`. */
const rejects = (input: unknown, why: RegExp) =>
  assert.throws(
    () => normalizeSchema(input),
    (err: unknown) => {
      assert.ok(err instanceof CategorizedError, `expected CategorizedError, got ${String(err)}`);
      assert.equal(err.category, 'invalid_input');
      assert.match(err.message, why);
      return true;
    },
  );

const ajv = new Ajv({ allErrors: true, strict: false });
const accepts = (schema: object, data: unknown) => ajv.compile(schema)(data);

describe('fields map', () => {
  test('type names become optional fields, aliases resolved', () => {
    const schema = normalizeSchema({
      title: 'string',
      price: 'float',
      stock: 'Int',
      in_stock: 'bool',
      url: 'url',
    });
    assert.equal(schema.input_format, 'fields');
    assert.equal(schema.name, 'extraction');
    assert.deepEqual(schema.fields, [
      { name: 'title', type: 'string', required: false },
      { name: 'price', type: 'number', required: false },
      { name: 'stock', type: 'integer', required: false },
      { name: 'in_stock', type: 'boolean', required: false },
      { name: 'url', type: 'string', required: false },
    ]);
  });

  test('nested objects and lists: [type], type[] and array', () => {
    const schema = normalizeSchema({
      specs: { weight: 'number', color: 'string' },
      tags: ['string'],
      sizes: 'integer[]',
      misc: 'array',
      variants: [{ sku: 'string', price: 'number' }],
    });
    assert.equal(schema.input_format, 'fields');
    assert.deepEqual(schema.fields, [
      {
        name: 'specs',
        type: 'object',
        required: false,
        properties: [
          { name: 'weight', type: 'number', required: false },
          { name: 'color', type: 'string', required: false },
        ],
      },
      {
        name: 'tags',
        type: 'array',
        required: false,
        items: { name: 'item', type: 'string', required: false },
      },
      {
        name: 'sizes',
        type: 'array',
        required: false,
        items: { name: 'item', type: 'integer', required: false },
      },
      { name: 'misc', type: 'array', required: false },
      {
        name: 'variants',
        type: 'array',
        required: false,
        items: {
          name: 'item',
          type: 'object',
          required: false,
          properties: [
            { name: 'sku', type: 'string', required: false },
            { name: 'price', type: 'number', required: false },
          ],
        },
      },
    ]);
  });

  test('given as JSON text, YAML text or YAML flow text', () => {
    const expected = [
      { name: 'title', type: 'string', required: false },
      { name: 'price', type: 'number', required: false },
    ];
    for (const text of [
      '{"title": "string", "price": "number"}',
      'title: string\nprice: number\n',
      '{title: string, price: number}',
    ]) {
      const schema = normalizeSchema(text);
      assert.equal(schema.input_format, 'fields', text);
      assert.deepEqual(schema.fields, expected, text);
    }
  });

  test('an object whose values are not all type names is a prompt, not a fields map', () => {
    const input = { title: 'string', price: 'the price with currency' };
    const schema = normalizeSchema(input);
    assert.equal(schema.input_format, 'prompt');
    assert.deepEqual(schema.fields, []);
    assert.equal(schema.prompt, JSON.stringify(input));
  });
});

describe('structured schema', () => {
  const YAML = [
    'name: product',
    'description: A product page',
    'fields:',
    '  - name: title',
    '    type: string',
    '    required: true',
    '    description: The product name',
    '  - name: price',
    '    type: number',
    '  - name: tags',
    '    type: array',
    '    items: string',
    '  - name: specs',
    '    type: object',
    '    properties:',
    '      - name: weight',
    '        type: number',
    '        required: true',
    '  - name: variants',
    '    type: array',
    '    items:',
    '      type: object',
    '      properties:',
    '        - name: sku',
    '          type: string',
    '          required: true',
  ].join('\n');

  const EXPECTED_FIELDS = [
    { name: 'title', type: 'string', required: true, description: 'The product name' },
    { name: 'price', type: 'number', required: false },
    {
      name: 'tags',
      type: 'array',
      required: false,
      items: { name: 'item', type: 'string', required: false },
    },
    {
      name: 'specs',
      type: 'object',
      required: false,
      properties: [{ name: 'weight', type: 'number', required: true }],
    },
    {
      name: 'variants',
      type: 'array',
      required: false,
      items: {
        name: 'item',
        type: 'object',
        required: false,
        properties: [{ name: 'sku', type: 'string', required: true }],
      },
    },
  ];

  test('YAML text with name, description, fields, items, properties, required', () => {
    const schema = normalizeSchema(YAML);
    assert.equal(schema.input_format, 'structured');
    assert.equal(schema.name, 'product');
    assert.equal(schema.description, 'A product page');
    assert.deepEqual(schema.fields, EXPECTED_FIELDS);
  });

  test('the same schema as an object and as JSON text gives the same fields', () => {
    const object = {
      name: 'product',
      description: 'A product page',
      fields: [
        { name: 'title', type: 'string', required: true, description: 'The product name' },
        { name: 'price', type: 'number' },
        { name: 'tags', type: 'array', items: 'string' },
        { name: 'specs', type: 'object', properties: [{ name: 'weight', type: 'number', required: true }] },
        {
          name: 'variants',
          type: 'array',
          items: { type: 'object', properties: [{ name: 'sku', type: 'string', required: true }] },
        },
      ],
    };
    assert.deepEqual(normalizeSchema(object), normalizeSchema(YAML));
    assert.deepEqual(normalizeSchema(JSON.stringify(object)), normalizeSchema(YAML));
  });

  test('fields may be a map of names to type names or field definitions', () => {
    const schema = normalizeSchema({
      name: 'product',
      fields: { title: 'string', price: { type: 'number', required: true }, tags: ['string'] },
    });
    assert.equal(schema.input_format, 'structured');
    assert.deepEqual(schema.fields, [
      { name: 'title', type: 'string', required: false },
      { name: 'price', type: 'number', required: true },
      {
        name: 'tags',
        type: 'array',
        required: false,
        items: { name: 'item', type: 'string', required: false },
      },
    ]);
  });

  test('a field without a type is a string; an array without items holds strings', () => {
    const schema = normalizeSchema({ name: 'x', fields: [{ name: 'a' }, { name: 'b', type: 'list' }] });
    assert.deepEqual(schema.fields, [
      { name: 'a', type: 'string', required: false },
      { name: 'b', type: 'array', required: false, items: { name: 'item', type: 'string', required: false } },
    ]);
  });

  test('name + fields wins over the fields-map reading (detection order)', () => {
    // Every value here is also a type name, so a fields-map reading would accept it too.
    assert.equal(normalizeSchema({ name: 'string', fields: { a: 'string' } }).input_format, 'structured');
  });
});

describe('free-form prompt', () => {
  test('plain text is a prompt, trimmed', () => {
    const schema = normalizeSchema('  Extract the product title and its price  ');
    assert.deepEqual(schema, {
      input_format: 'prompt',
      name: 'extraction',
      fields: [],
      prompt: 'Extract the product title and its price',
    });
  });

  test('text that YAML reads as a mapping of prose stays the original prompt', () => {
    const text = 'Extract: the title and the price';
    const schema = normalizeSchema(text);
    assert.equal(schema.input_format, 'prompt');
    assert.equal(schema.prompt, text);
  });

  test('unbalanced JSON-looking text is a prompt, not an error', () => {
    assert.equal(normalizeSchema('{ give me the title').input_format, 'prompt');
  });
});

describe('errors (422)', () => {
  test('empty or blank text', () => {
    rejects('', /empty/);
    rejects('   \n ', /empty/);
  });

  test('an empty object, as object or as text', () => {
    rejects({}, /names no field/);
    rejects('{}', /names no field/);
  });

  test('structured with no fields', () => {
    rejects({ name: 'x', fields: [] }, /schema\.fields names no field/);
    rejects('name: x\nfields: {}', /schema\.fields names no field/);
  });

  test('structured with a bad name', () => {
    rejects({ name: '  ', fields: [{ name: 'a' }] }, /schema\.name must be a non-empty string/);
    rejects({ name: 3, fields: [{ name: 'a' }] }, /schema\.name/);
  });

  test('structured fields that are neither a list nor a map', () => {
    rejects({ name: 'x', fields: 'title' }, /schema\.fields must be a list of fields or a map/);
  });

  test('a field that is not an object, or has no name', () => {
    rejects({ name: 'x', fields: ['title'] }, /schema\.fields\[0\] must be an object with name and type/);
    rejects({ name: 'x', fields: [{ type: 'string' }] }, /schema\.fields\[0\]\.name must be a non-empty/);
  });

  test('an unknown type names the field and the allowed types', () => {
    rejects(
      { name: 'x', fields: [{ name: 'a' }, { name: 'b', type: 'nubmer' }] },
      /schema\.fields\[1\]\.type: unknown type "nubmer" \(use string, number, integer, boolean, array, object\)/,
    );
    rejects({ name: 'x', fields: { price: 'nubmer' } }, /schema\.fields\.price: unknown type "nubmer"/);
  });

  test('an unknown list item type is an error, not a silent string', () => {
    rejects(
      { name: 'x', fields: [{ name: 'tags', type: 'array', items: 'nubmer' }] },
      /schema\.fields\[0\]\.items: unknown type "nubmer"/,
    );
  });

  test('an object field without properties', () => {
    rejects({ name: 'x', fields: [{ name: 'specs', type: 'object' }] }, /an object field needs properties/);
  });
});

describe('toJsonSchema', () => {
  test('a prompt asks for any JSON object', () => {
    assert.deepEqual(toJsonSchema(normalizeSchema('the title')), { type: 'object' });
  });

  test('fields map: every field optional and nullable, no extra properties', () => {
    const json = toJsonSchema(normalizeSchema({ title: 'string', tags: ['string'], specs: { w: 'number' } }));
    assert.deepEqual(json, {
      type: 'object',
      properties: {
        title: { type: ['string', 'null'] },
        tags: { type: ['array', 'null'], items: { type: 'string' } },
        specs: {
          type: ['object', 'null'],
          properties: { w: { type: ['number', 'null'] } },
          required: [],
          additionalProperties: false,
        },
      },
      required: [],
      additionalProperties: false,
    });
    assert.ok(accepts(json, { title: null, tags: ['a'], specs: { w: 1 } }));
    assert.ok(!accepts(json, { title: 'x', extra: 1 }));
    assert.ok(!accepts(json, { tags: [1] }));
  });

  test('structured: required fields are listed and not nullable; descriptions carried', () => {
    const json = toJsonSchema(
      normalizeSchema({
        name: 'p',
        fields: [
          { name: 'title', type: 'string', required: true, description: 'Name' },
          { name: 'price', type: 'number' },
        ],
      }),
    );
    assert.deepEqual(json, {
      type: 'object',
      properties: {
        title: { type: 'string', description: 'Name' },
        price: { type: ['number', 'null'] },
      },
      required: ['title'],
      additionalProperties: false,
    });
    assert.ok(accepts(json, { title: 'a', price: null }));
    assert.ok(!accepts(json, { price: 1 }));
    assert.ok(!accepts(json, { title: null }));
  });

  test('a bare `object` field accepts any object, not only an empty one', () => {
    const json = toJsonSchema(normalizeSchema({ meta: 'object' }));
    assert.deepEqual(json.properties, { meta: { type: ['object', 'null'] } });
    assert.ok(accepts(json, { meta: { author: 'Ann', year: 2020 } }));
    assert.ok(!accepts(json, { meta: 'text' }));
  });

  test('a bare `array` field accepts items of any type', () => {
    const json = toJsonSchema(normalizeSchema({ misc: 'array' }));
    assert.deepEqual(json.properties, { misc: { type: ['array', 'null'], items: {} } });
    assert.ok(accepts(json, { misc: [1, 'a', { b: true }] }));
  });
});
