// Schema input: the three formats, their detection order, the
// JSON Schema the model is held to, and the 422-worthy errors.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { CategorizedError } from '../../shared/errors.js';
import { normalizeSchema, toJsonSchema, validateSchemaYaml } from '../../shared/schema-input.js';

/** Asserts an `invalid_input` error at `location` (a path inside the schema) whose message matches `why`. */
const rejectsAt = (
  input: unknown,
  location: string,
  why: RegExp,
  parse: (text: string) => unknown = normalizeSchema,
) =>
  assert.throws(
    () => parse(input as string),
    (err: unknown) => {
      assert.ok(err instanceof CategorizedError, `expected CategorizedError, got ${String(err)}`);
      assert.equal(err.category, 'invalid_input');
      assert.equal(err.details?.location, location, err.message);
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

  test('an object whose values are not all type names is a 422 naming the key, never a prompt', () => {
    // Changed: this used to fall back to a prompt; an object is never sensibly a prompt.
    rejectsAt(
      { title: 'string', price: 'the price with currency' },
      'price',
      /^price: unknown type "the price with currency"; valid types: string, number, integer, boolean, array, object/,
    );
  });

  test('[] is a list of anything and {} any object, not a prompt', () => {
    const schema = normalizeSchema({ tags: [], meta: {} });
    assert.equal(schema.input_format, 'fields');
    assert.deepEqual(schema.fields, [
      { name: 'tags', type: 'array', required: false },
      { name: 'meta', type: 'object', required: false },
    ]);
  });

  test('{tags: [string]}, lists of objects and nested maps inside lists', () => {
    const schema = normalizeSchema({
      product: { tags: ['string'], offers: [{ seller: 'string', price: 'number' }] },
    });
    assert.deepEqual(schema.fields, [
      {
        name: 'product',
        type: 'object',
        required: false,
        properties: [
          {
            name: 'tags',
            type: 'array',
            required: false,
            items: { name: 'item', type: 'string', required: false },
          },
          {
            name: 'offers',
            type: 'array',
            required: false,
            items: {
              name: 'item',
              type: 'object',
              required: false,
              properties: [
                { name: 'seller', type: 'string', required: false },
                { name: 'price', type: 'number', required: false },
              ],
            },
          },
        ],
      },
    ]);
  });

  test('a value may be a field definition; a map with other keys is a nested object', () => {
    const schema = normalizeSchema({
      price: { type: 'number', description: 'With tax', required: true },
      vehicle: { type: 'string', wheels: 'integer' },
    });
    assert.deepEqual(schema.fields, [
      { name: 'price', type: 'number', description: 'With tax', required: true },
      {
        name: 'vehicle',
        type: 'object',
        required: false,
        properties: [
          { name: 'type', type: 'string', required: false },
          { name: 'wheels', type: 'integer', required: false },
        ],
      },
    ]);
  });

  test('required: [names] marks sibling fields required, at any level; otherwise it is a field', () => {
    const schema = normalizeSchema({
      title: 'string',
      price: 'number',
      required: ['title'],
      specs: { weight: 'number', required: ['weight'] },
    });
    assert.deepEqual(
      schema.fields.map((f) => [f.name, f.required]),
      [
        ['title', true],
        ['price', false],
        ['specs', false],
      ],
    );
    assert.equal(schema.fields[2]?.properties?.[0]?.required, true);
    const field = normalizeSchema({ required: ['string'] }).fields[0];
    assert.deepEqual(field, {
      name: 'required',
      type: 'array',
      required: false,
      items: { name: 'item', type: 'string', required: false },
    });
  });

  test('keys literally called name and fields: a fields map unless fields holds field definitions', () => {
    const listing = normalizeSchema({ name: 'string', fields: ['string'] });
    assert.equal(listing.input_format, 'fields');
    assert.deepEqual(
      listing.fields.map((f) => [f.name, f.type]),
      [
        ['name', 'string'],
        ['fields', 'array'],
      ],
    );
    assert.equal(normalizeSchema({ name: 'text', fields: 'array' }).input_format, 'fields');
    assert.equal(normalizeSchema({ name: 'string', fields: [{ label: 'string' }] }).input_format, 'fields');
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

  test('in the map form a nested map without type keeps its nesting', () => {
    const schema = normalizeSchema({
      name: 'product',
      fields: { specs: { weight: 'number', dims: { w: 'number' } }, offers: [{ seller: 'string' }] },
    });
    assert.deepEqual(schema.fields, [
      {
        name: 'specs',
        type: 'object',
        required: false,
        properties: [
          { name: 'weight', type: 'number', required: false },
          {
            name: 'dims',
            type: 'object',
            required: false,
            properties: [{ name: 'w', type: 'number', required: false }],
          },
        ],
      },
      {
        name: 'offers',
        type: 'array',
        required: false,
        items: {
          name: 'item',
          type: 'object',
          required: false,
          properties: [{ name: 'seller', type: 'string', required: false }],
        },
      },
    ]);
  });

  test('JSON-Schema-style required lists: on the schema, on an object field and on list items', () => {
    const schema = normalizeSchema({
      name: 'p',
      required: ['title', 'specs'],
      fields: [
        { name: 'title' },
        { name: 'price', type: 'number' },
        { name: 'specs', type: 'object', properties: { w: 'number', h: 'number' }, required: ['h'] },
        {
          name: 'offers',
          type: 'array',
          items: { type: 'object', properties: [{ name: 'seller' }, { name: 'price' }], required: ['price'] },
        },
      ],
    });
    assert.deepEqual(
      schema.fields.map((f) => [f.name, f.required]),
      [
        ['title', true],
        ['price', false],
        ['specs', true],
        ['offers', false],
      ],
    );
    assert.deepEqual(
      schema.fields[2]?.properties?.map((f) => f.required),
      [false, true],
    );
    assert.deepEqual(
      schema.fields[3]?.items?.properties?.map((f) => f.required),
      [false, true],
    );
    const json = toJsonSchema(schema);
    assert.deepEqual(json.required, ['title', 'specs']);
  });

  test('a missing type is inferred: properties → object, items → array', () => {
    const schema = normalizeSchema({
      name: 'x',
      fields: [
        { name: 'specs', properties: [{ name: 'w', type: 'number' }] },
        { name: 'tags', items: 'string' },
      ],
    });
    assert.deepEqual(
      schema.fields.map((f) => f.type),
      ['object', 'array'],
    );
  });

  test('a JSON object text is never a prompt', () => {
    assert.equal(normalizeSchema('{"name": "p", "fields": [{"name": "a"}]}').input_format, 'structured');
    rejectsAt('{"title": "string", "price": "nubmer"}', 'price', /unknown type "nubmer"/);
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

describe('errors (422) say where', () => {
  test('empty or blank text', () => {
    rejectsAt('', '', /empty/);
    rejectsAt('   \n ', '', /empty/);
  });

  test('an empty object, as object or as text', () => {
    rejectsAt({}, '', /names no field/);
    rejectsAt('{}', '', /names no field/);
  });

  test('input that is neither text nor an object', () => {
    rejectsAt(42, '', /must be text or an object/);
    rejectsAt(['title'], '', /must be text or an object/);
  });

  test('structured with no fields', () => {
    rejectsAt({ name: 'x', fields: [] }, '', /^the schema names no field: fields is empty/);
    rejectsAt('name: x\nfields: {}', '', /names no field: fields is empty/);
  });

  test('structured with a bad name or description', () => {
    rejectsAt({ name: '  ', fields: [{ name: 'a' }] }, 'name', /^name: must be a non-empty string/);
    rejectsAt({ name: 3, fields: [{ name: 'a' }] }, 'name', /non-empty string/);
    rejectsAt({ name: 'x', description: 5, fields: [{ name: 'a' }] }, 'description', /must be text/);
  });

  test('structured fields that are neither a list nor a map', () => {
    rejectsAt({ name: 'x', fields: 'title' }, 'fields', /must be a list of field definitions or a map/);
  });

  test('fields without a name next to them', () => {
    rejectsAt({ fields: [{ name: 'title', type: 'string' }] }, 'name', /structured schema needs a name/);
  });

  test('a field that is not an object, or has no name', () => {
    rejectsAt({ name: 'x', fields: ['title'] }, 'fields.0', /must be an object like \{name, type\}/);
    rejectsAt({ name: 'x', fields: [{ type: 'string' }] }, 'fields.0.name', /needs a non-empty name/);
  });

  test('an unknown type names the field and the allowed types', () => {
    rejectsAt(
      { name: 'x', fields: [{ name: 'a' }, { name: 'b', type: 'nubmer' }] },
      'fields.1.type',
      /^fields\.1\.type: unknown type "nubmer"; valid types: string, number, integer, boolean, array, object \(aliases: str,/,
    );
    rejectsAt({ name: 'x', fields: { price: 'nubmer' } }, 'fields.price', /unknown type "nubmer"/);
  });

  test('an unknown type in a fields map is a 422, not a prompt (as object, JSON or YAML text)', () => {
    for (const input of [{ price: 'nubmer' }, '{"price": "nubmer"}', 'title: string\nprice: nubmer']) {
      rejectsAt(
        input,
        'price',
        /^price: unknown type "nubmer"; valid types: .*\[type\] or type\[\] for a list/,
      );
    }
    rejectsAt({ specs: { weight: 'kg' } }, 'specs.weight', /unknown type "kg"/);
    rejectsAt({ tags: ['nubmer'] }, 'tags.0', /unknown type "nubmer"/);
    rejectsAt({ offers: [{ price: 7 }] }, 'offers.0.price', /unknown type 7/);
    rejectsAt({ tags: ['string', 'number'] }, 'tags', /exactly one item type/);
    rejectsAt({ '': 'string' }, '', /field name must not be empty/);
  });

  test('an unknown list item type is an error, not a silent string', () => {
    rejectsAt(
      { name: 'x', fields: [{ name: 'tags', type: 'array', items: 'nubmer' }] },
      'fields.0.items',
      /^fields\.0\.items: unknown type "nubmer"/,
    );
  });

  test('an object field without properties', () => {
    rejectsAt({ name: 'x', fields: [{ name: 'specs', type: 'object' }] }, 'fields.0', /needs properties/);
    rejectsAt(
      { name: 'x', fields: [{ name: 'specs', type: 'object', properties: [] }] },
      'fields.0.properties',
      /needs properties/,
    );
  });

  test('keys that do not fit the field: unknown, misplaced, duplicated', () => {
    rejectsAt({ name: 'x', fields: [{ name: 'a', requried: true }] }, 'fields.0.requried', /unknown key/);
    rejectsAt({ name: 'x', fields: [{ name: 'a' }], version: 2 }, 'version', /unknown key/);
    rejectsAt(
      { name: 'x', fields: [{ name: 'a', type: 'string', items: 'string' }] },
      'fields.0.items',
      /array/,
    );
    rejectsAt(
      { name: 'x', fields: [{ name: 'a', type: 'number', properties: { b: 'string' } }] },
      'fields.0.properties',
      /only applies to object fields/,
    );
    rejectsAt({ name: 'x', fields: [{ name: 'a' }, { name: 'a' }] }, 'fields.1.name', /duplicate field name/);
    rejectsAt({ name: 'x', fields: [{ name: 'a', description: ['x'] }] }, 'fields.0.description', /text/);
    rejectsAt({ name: 'x', fields: [{ name: 'a', required: 'yes' }] }, 'fields.0.required', /true, false/);
  });

  test('a required list must name existing fields', () => {
    rejectsAt({ name: 'x', fields: [{ name: 'a' }], required: ['b'] }, 'required.0', /names no field/);
    rejectsAt({ name: 'x', fields: [{ name: 'a' }], required: 'a' }, 'required', /list of field names/);
    rejectsAt({ title: 'string', required: ['title', 'price'] }, 'required.1', /names no field/);
  });

  test('broken JSON or multi-line YAML meant as a schema is a 422, not a prompt', () => {
    rejectsAt('{"title": "string", "price": "number"', '', /looks like JSON but does not parse/);
    rejectsAt('{title: string, price: number', '', /looks like JSON/);
    rejectsAt(
      'name: product\nfields:\n  - name: title\n   type: string',
      '',
      /YAML syntax error at line 4, column 4/,
    );
  });

  test('limits: 200 fields, 5 levels of nesting, 20 kB', () => {
    const fields = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, 'string']));
    assert.equal(normalizeSchema(fields(200)).fields.length, 200);
    rejectsAt(fields(201), 'f200', /more than 200 fields/);
    // a, b, 150 inside b, c: the 201st field is c.f47.
    rejectsAt({ a: { b: fields(150) }, c: fields(60) }, 'c.f47', /more than 200 fields/);
    assert.equal(normalizeSchema({ a: { b: { c: { d: { e: 'string' } } } } }).fields.length, 1);
    rejectsAt({ a: { b: { c: { d: { e: { f: 'string' } } } } } }, 'a.b.c.d.e.f', /deeper than 5 levels/);
    rejectsAt({ a: [[[[['string']]]]] }, 'a.0.0.0.0.0', /deeper than 5 levels/);
    rejectsAt(`Extract ${'the title and '.repeat(2000)}`, '', /larger than 20 kB/);
    rejectsAt({ notes: 'x'.repeat(21 * 1024) }, '', /larger than 20 kB/);
  });
});

describe('validateSchemaYaml (stored schemas)', () => {
  test('structured YAML and {field: type} YAML are accepted', () => {
    const schema = validateSchemaYaml('name: product\nfields:\n  - name: title\n    required: true\n');
    assert.equal(schema.input_format, 'structured');
    assert.deepEqual(schema.fields, [{ name: 'title', type: 'string', required: true }]);
    assert.equal(validateSchemaYaml('title: string\nprice: number').input_format, 'fields');
  });

  test('never a prompt: prose, syntax errors, non-mappings and empty text are 422s', () => {
    rejectsAt('Extract: the title', 'Extract', /unknown type "the title"/, validateSchemaYaml);
    rejectsAt('a: b\n  c: d', '', /YAML syntax error at line 2/, validateSchemaYaml);
    rejectsAt('- title\n- price', '', /must be a YAML mapping/, validateSchemaYaml);
    rejectsAt('just some words', '', /must be a YAML mapping/, validateSchemaYaml);
    rejectsAt('  ', '', /empty/, validateSchemaYaml);
    rejectsAt(
      'name: p\nfields:\n  - name: a\n    type: nubmer',
      'fields.0.type',
      /nubmer/,
      validateSchemaYaml,
    );
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
