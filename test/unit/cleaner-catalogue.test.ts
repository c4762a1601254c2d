// The cleaner catalogue (shared/cleaners.ts) and the request schema built on it: what the API validates
// and lists, and what the clean activity parses.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import {
  ANALYSIS_CLEANER_CHAIN,
  CLEANER_NAMES,
  chainOutputFormat,
  DEFAULT_CLEANER_CHAIN,
  defaultChainFor,
  describeCleaners,
  isCleanerName,
  isValidSelector,
  keepInChain,
  parseCleanerOptions,
} from '../../shared/cleaners.js';
import { CategorizedError } from '../../shared/errors.js';
import { normalizeSchema } from '../../shared/schema-input.js';
import { CleanerListSchema, CleanerStepSchema } from '../../shared/schemas/cleaners.js';

const ChainSchema = z.array(CleanerStepSchema);
const issuesOf = (chain: unknown) => {
  const result = ChainSchema.safeParse(chain);
  assert.ok(!result.success, 'should be refused');
  return result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
};

describe('catalogue', () => {
  test('names the five cleaners of the catalogue', () => {
    assert.deepEqual([...CLEANER_NAMES].sort(), ['html', 'markdown', 'noop', 'readability', 'text']);
    assert.ok(isCleanerName('markdown'));
    for (const name of ['sparkle', 'toString', 'constructor', 42]) assert.ok(!isCleanerName(name));
  });

  test('describes every cleaner and option, with types and defaults from the zod schemas', () => {
    const list = describeCleaners();
    CleanerListSchema.parse({
      cleaners: list,
      default_extraction_chain: DEFAULT_CLEANER_CHAIN,
      default_analysis_chain: ANALYSIS_CLEANER_CHAIN,
    });
    const byName = Object.fromEntries(list.map((cleaner) => [cleaner.name, cleaner]));
    assert.deepEqual(
      list.filter((cleaner) => cleaner.default).map((cleaner) => cleaner.name),
      ['markdown'],
    );
    assert.deepEqual(
      byName.markdown!.options.map(({ name, type, default: byDefault }) => ({ name, type, byDefault })),
      [
        { name: 'remove_selectors', type: 'string[]', byDefault: [] },
        { name: 'keep_selectors', type: 'string[]', byDefault: [] },
        { name: 'include_links', type: 'boolean', byDefault: true },
        { name: 'include_images', type: 'boolean', byDefault: true },
        { name: 'drop_boilerplate', type: 'boolean', byDefault: true },
      ],
    );
    assert.deepEqual(
      byName.text!.options.filter((o) => o.type === 'boolean').map((o) => o.default),
      [false, false, true],
    );
    assert.deepEqual(
      byName.readability!.options.map((o) => o.name),
      ['remove_selectors', 'keep_selectors'],
    );
    assert.deepEqual(byName.noop!.options, []);
    for (const cleaner of list) {
      assert.ok(cleaner.description.length > 20, cleaner.name);
      for (const option of cleaner.options) assert.ok(option.description.length > 20, option.name);
    }
  });
});

describe('CleanerStepSchema', () => {
  test('accepts each cleaner with and without options, filling option defaults', () => {
    const parsed = ChainSchema.parse([
      { name: 'readability', options: { remove_selectors: [' .ad '] } },
      { name: 'markdown', options: { include_images: false } },
      { name: 'noop' },
    ]);
    assert.deepEqual(parsed, [
      { name: 'readability', options: { remove_selectors: ['.ad'], keep_selectors: [] } },
      {
        name: 'markdown',
        options: {
          remove_selectors: [],
          keep_selectors: [],
          include_links: true,
          include_images: false,
          drop_boilerplate: true,
        },
      },
      { name: 'noop' },
    ]);
  });

  test('an unknown cleaner is refused at its name, listing the known ones', () => {
    const [issue] = issuesOf([{ name: 'markdown' }, { name: 'sparkle' }]);
    assert.equal(issue!.path, '1.name');
    assert.match(issue!.message, /unknown cleaner; one of markdown, readability, text, html, noop/);
  });

  test('a bad option is refused at the option', () => {
    assert.deepEqual(
      issuesOf([{ name: 'markdown', options: { remove_selectors: 'nav' } }])[0]!.path,
      '0.options.remove_selectors',
    );
    assert.deepEqual(issuesOf([{ name: 'markdown', options: { remove_selectors: ['nav', 'div['] } }]), [
      { path: '0.options.remove_selectors.1', message: 'not a valid CSS selector' },
    ]);
    assert.equal(
      issuesOf([{ name: 'text', options: { include_links: 'yes' } }])[0]!.path,
      '0.options.include_links',
    );
    assert.equal(
      issuesOf([{ name: 'html', options: { remove_selectors: [''] } }])[0]!.path,
      '0.options.remove_selectors.0',
    );
  });

  test('options a cleaner does not take, and unknown step fields, are refused', () => {
    assert.equal(issuesOf([{ name: 'noop', options: { include_links: true } }])[0]!.path, '0.options');
    assert.equal(
      issuesOf([{ name: 'readability', options: { include_images: true } }])[0]!.path,
      '0.options',
    );
    assert.equal(issuesOf([{ name: 'markdown', extra: 1 }])[0]!.path, '0');
  });
});

describe('isValidSelector', () => {
  test('what the selector engine compiles', () => {
    for (const ok of [
      'nav',
      '.ad, #cookie-banner',
      'a[href^="http"]',
      'ul > li:nth-child(2n+1)',
      'p:has(> a)',
      'a:contains(Next)',
    ])
      assert.ok(isValidSelector(ok), ok);
    for (const bad of ['div[', 'p,,', 'p:nope', '::before']) assert.ok(!isValidSelector(bad), bad);
  });
});

describe('parseCleanerOptions', () => {
  test('fills defaults', () => {
    assert.deepEqual(parseCleanerOptions('text', undefined), {
      remove_selectors: [],
      keep_selectors: [],
      include_links: false,
      include_images: false,
      drop_boilerplate: true,
    });
  });

  test('bad options are invalid input with their location', () => {
    const at = (location: string) => (err: unknown) =>
      err instanceof CategorizedError &&
      err.category === 'invalid_input' &&
      err.details?.location === location;
    assert.throws(
      () => parseCleanerOptions('markdown', { include_links: 1 }, 'cleaner_chain.3.options'),
      at('cleaner_chain.3.options.include_links'),
    );
    assert.throws(() => parseCleanerOptions('noop', { x: 1 }), at('options.x'));
  });
});

describe('keepInChain', () => {
  test('adds selectors to every step that keeps, leaves the rest', () => {
    const chain = [
      { name: 'readability', options: { keep_selectors: ['.price'] } },
      { name: 'markdown' },
      { name: 'noop' },
    ];
    assert.deepEqual(keepInChain(chain, ['a.next']), [
      { name: 'readability', options: { keep_selectors: ['.price', 'a.next'] } },
      { name: 'markdown', options: { keep_selectors: ['a.next'] } },
      { name: 'noop' },
    ]);
    assert.equal(keepInChain(chain, []), chain);
  });
});

describe('chainOutputFormat', () => {
  test('the last converting step names the format; noop passes its input on', () => {
    assert.equal(chainOutputFormat([{ name: 'markdown' }]), 'markdown');
    assert.equal(chainOutputFormat([{ name: 'readability' }, { name: 'text' }]), 'text');
    assert.equal(chainOutputFormat([{ name: 'readability' }]), 'html');
    assert.equal(chainOutputFormat([{ name: 'text' }, { name: 'noop' }]), 'text');
  });

  test('an empty or noop-only chain hands on what it read: HTML for a page, text for text/plain', () => {
    assert.equal(chainOutputFormat([]), 'html');
    assert.equal(chainOutputFormat([{ name: 'noop' }], 'text'), 'text');
    assert.equal(chainOutputFormat([{ name: 'toString' }]), 'html');
  });
});

describe('defaultChainFor', () => {
  const optionsFor = (input: unknown) => defaultChainFor(normalizeSchema(input))[0]!.options;

  test('no URLs for a schema that names none: the default chain without link targets or image URLs', () => {
    assert.deepEqual(optionsFor({ title: 'string', price: 'number' }), {
      include_links: false,
      include_images: false,
    });
    // Words that merely contain the names do not count.
    assert.deepEqual(optionsFor({ curly: 'string', imagination: 'string' }), {
      include_links: false,
      include_images: false,
    });
  });

  test('fields, nested fields, descriptions and prompts that name links or images ask for them', () => {
    assert.deepEqual(optionsFor({ title: 'string', product_url: 'url' }), {
      include_links: true,
      include_images: false,
    });
    assert.deepEqual(optionsFor({ items: [{ name: 'string', imageUrl: 'string' }] }), {
      include_links: true,
      include_images: true,
    });
    assert.deepEqual(optionsFor({ name: 'p', fields: [{ name: 'pic', description: 'the main photo' }] }), {
      include_links: false,
      include_images: true,
    });
    assert.deepEqual(optionsFor('every article title with its link'), {
      include_links: true,
      include_images: false,
    });
  });

  test('its steps parse with the catalogue', () => {
    for (const step of defaultChainFor(normalizeSchema({ title: 'string' })))
      assert.equal(parseCleanerOptions(step.name, step.options).drop_boilerplate, true);
  });
});
