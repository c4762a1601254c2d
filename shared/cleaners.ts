// The catalogue of content cleaners: each cleaner's name, what it
// does and its options as zod schemas. The API validates cleaner_chain with it and lists it at
// GET /api/v1/cleaners; the clean activity parses each step's options with the same schemas.
import { load } from 'cheerio';
import { z } from 'zod';
import { CategorizedError } from './errors.js';
import type { Field, NormalizedSchema } from './schema-input.js';

// With no elements to match the engine may not compile the selector, so the probe has one.
const selectorProbe = load('<p></p>');

/** True when the selector compiles in the engine the cleaners use (cheerio's, with its extensions). */
export function isValidSelector(selector: string): boolean {
  try {
    // find(), unlike $(string), never reads the string as HTML to create.
    selectorProbe.root().find(selector);
    return true;
  } catch {
    return false;
  }
}

const SelectorListSchema = z
  .array(z.string().trim().min(1).max(500).refine(isValidSelector, { message: 'not a valid CSS selector' }))
  .max(50);

const removeSelectors = SelectorListSchema.default([]).meta({
  description:
    'CSS selectors of elements to drop with everything inside them, e.g. ["nav", ".ads", "#cookie-banner"].',
});

const keepSelectors = SelectorListSchema.default([]).meta({
  description:
    'CSS selectors of elements that survive cleaning: they are not dropped as page noise, by ' +
    'remove_selectors (a kept element inside a removed one stays where it was) or by readability ' +
    '(appended after the main content when left out of it). Crawls add their follow and next-page selectors.',
});

const includeLinks = (byDefault: boolean, rendering: string) =>
  z
    .boolean()
    .default(byDefault)
    .meta({ description: `Keep link targets: ${rendering}. When false only the link text stays.` });

const includeImages = (byDefault: boolean, rendering: string) =>
  z
    .boolean()
    .default(byDefault)
    .meta({ description: `Keep images: ${rendering}. When false images are dropped.` });

const dropBoilerplate = (byDefault: boolean) =>
  z
    .boolean()
    .default(byDefault)
    .meta({
      description:
        'Drop page chrome: navigation, site header and footer, sidebars, forms, cookie and consent banners, ' +
        "share bars and blocks of short links (menus, footer columns, pagination); beside a page's single " +
        'main content, blocks that are almost only links, long headlines included ("most read", "related"), and ' +
        "rows of link cards beside an article's paragraphs; image captions and photo credits; elements the " +
        'page hides or leaves out of print; and on a page that runs on into other stories, all but the one ' +
        'its title names. Listing items, ' +
        'tables and whatever holds the main content (main, article, the h1) or keep_selectors stay.',
    });

export const CLEANER_CATALOGUE = {
  markdown: {
    output: 'markdown',
    description:
      'The page as Markdown (GitHub-flavoured: tables stay tables). Scripts, styles, the <head> ' +
      '(title, meta), iframes, SVG, canvas, templates and noscript are dropped, and so is page chrome unless ' +
      'drop_boilerplate is false; relative URLs are made absolute. The default chain is [markdown].',
    options: z
      .object({
        remove_selectors: removeSelectors,
        keep_selectors: keepSelectors,
        include_links: includeLinks(true, '[text](url)'),
        include_images: includeImages(true, '![alt](src)'),
        drop_boilerplate: dropBoilerplate(true),
      })
      .strict(),
  },
  readability: {
    output: 'html',
    description:
      "Only the page's main content (Mozilla Readability: drops navigation, headers, footers, sidebars and " +
      "ads, captions, photo credits and a video box's labels (the pictures stay), link blocks and the trail " +
      'after the article; the standfirst and key points under the headline stay), as HTML that starts with a header ' +
      'holding the title, byline and dateline; follow it with markdown, text or html. ' +
      'On a listing or a thread the items or posts are the content, not a newsletter box or the footer. ' +
      'A page where it finds little main content passes through whole, minus page noise and chrome.',
    options: z.object({ remove_selectors: removeSelectors, keep_selectors: keepSelectors }).strict(),
  },
  text: {
    output: 'text',
    description:
      'Plain text: no markup; headings, paragraphs, list items and table rows stay on their own lines.',
    options: z
      .object({
        remove_selectors: removeSelectors,
        keep_selectors: keepSelectors,
        include_links: includeLinks(false, 'text [url]'),
        include_images: includeImages(false, 'alt [src]'),
        drop_boilerplate: dropBoilerplate(true),
      })
      .strict(),
  },
  html: {
    output: 'html',
    description:
      'Sanitised HTML: only structural and text tags (headings, paragraphs, lists, tables, links, images) ' +
      'with their essential attributes (href, src, alt, title, colspan, rowspan); no scripts, styles, ' +
      'classes, ids or event handlers. Whitespace is collapsed outside <pre>; elements left empty go.',
    options: z
      .object({
        remove_selectors: removeSelectors,
        keep_selectors: keepSelectors,
        include_links: includeLinks(true, '<a href>'),
        include_images: includeImages(true, '<img src alt>'),
        drop_boilerplate: dropBoilerplate(true),
      })
      .strict(),
  },
  noop: {
    output: 'input',
    description: 'Passes the content through unchanged.',
    options: z.object({}).strict(),
  },
} as const;

export type CleanerName = keyof typeof CLEANER_CATALOGUE;
export const CLEANER_NAMES = Object.keys(CLEANER_CATALOGUE) as [CleanerName, ...CleanerName[]];
export type CleanerOptions<N extends CleanerName> = z.output<(typeof CLEANER_CATALOGUE)[N]['options']>;

/** What a chain hands the model: the format of its last step that converts (noop passes its input on). */
export type ContentFormat = 'html' | 'markdown' | 'text';

/**
 * The format a chain's output is in, for the prompt to name it; `input` is the format of what the chain
 * reads (a fetched page is HTML; a text/plain response is text). Unknown names change nothing.
 */
export function chainOutputFormat(chain: { name: string }[], input: ContentFormat = 'html'): ContentFormat {
  return chain.reduce<ContentFormat>((format, step) => {
    if (!isCleanerName(step.name)) return format;
    const output = CLEANER_CATALOGUE[step.name].output;
    return output === 'input' ? format : output;
  }, input);
}

export const DEFAULT_CLEANER_CHAIN: { name: CleanerName }[] = [{ name: 'markdown' }];
/** What POST /analyze reads pages with (activities/analyze). */
export const ANALYSIS_CLEANER_CHAIN: { name: CleanerName }[] = [{ name: 'markdown' }];

const LINK_WORDS = /\b(?:urls?|links?|hrefs?|website|homepage|webpage|permalink)\b|_(?:url|link|href)\b/i;
const IMAGE_WORDS =
  /\b(?:images?|img|photos?|pictures?|thumbnails?|logo|avatar|icon)\b|_(?:image|img|photo|src)\b/i;

function schemaWords(fields: Field[]): string[] {
  return fields.flatMap((field) => [
    field.name,
    field.description ?? '',
    ...schemaWords([...(field.items ? [field.items] : []), ...(field.properties ?? [])]),
  ]);
}

/** Whether a schema asks for link targets or image URLs: a field (or the prompt) names them. */
export function urlsWanted(schema: NormalizedSchema): { links: boolean; images: boolean } {
  const text = [schema.prompt ?? '', schema.description ?? '', ...schemaWords(schema.fields)]
    .join('\n')
    .replaceAll(/([a-z])([A-Z])/g, '$1 $2');
  return { links: LINK_WORDS.test(text), images: IMAGE_WORDS.test(text) };
}

/**
 * The chain for a request that names none: the default chain, sending link targets and image URLs only
 * when the schema asks for them (they are about half of what a page costs in tokens).
 */
export function defaultChainFor(
  schema: NormalizedSchema,
): { name: 'markdown'; options: { include_links: boolean; include_images: boolean } }[] {
  const wanted = urlsWanted(schema);
  return [{ name: 'markdown', options: { include_links: wanted.links, include_images: wanted.images } }];
}

export function isCleanerName(name: unknown): name is CleanerName {
  return typeof name === 'string' && Object.hasOwn(CLEANER_CATALOGUE, name);
}

/**
 * A step's options with defaults filled in; bad options are invalid input naming where they are
 * (`location` is the options' own place, e.g. "cleaner_chain.0.options").
 */
export function parseCleanerOptions<N extends CleanerName>(
  name: N,
  options: unknown,
  location = 'options',
): CleanerOptions<N> {
  const parsed = CLEANER_CATALOGUE[name].options.safeParse(options ?? {});
  if (parsed.success) return parsed.data as CleanerOptions<N>;
  const issue = parsed.error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const where = [location, ...issue.path, ...keys.slice(0, 1)].join('.');
  const message = keys.length > 0 ? `unknown option for cleaner "${name}"` : issue.message;
  throw new CategorizedError('invalid_input', `${where}: ${message}`, false, { location: where });
}

/** Adds selectors to keep_selectors of every step that has that option (crawls keep their link selectors). */
export function keepInChain<S extends { name: string; options?: Record<string, unknown> }>(
  chain: S[],
  selectors: string[],
): S[] {
  if (selectors.length === 0) return chain;
  return chain.map((step) => {
    if (!isCleanerName(step.name) || !('keep_selectors' in CLEANER_CATALOGUE[step.name].options.shape))
      return step;
    const kept = Array.isArray(step.options?.keep_selectors) ? step.options.keep_selectors : [];
    return { ...step, options: { ...step.options, keep_selectors: [...kept, ...selectors] } };
  });
}

export interface CleanerOptionInfo {
  name: string;
  type: string;
  default: unknown;
  description: string;
}

function describeOption(name: string, schema: z.ZodType): CleanerOptionInfo {
  const json = z.toJSONSchema(schema, { io: 'input' }) as {
    type?: string;
    items?: { type?: string };
    default?: unknown;
    description?: string;
  };
  const type = json.type === 'array' ? `${json.items?.type ?? 'unknown'}[]` : (json.type ?? 'unknown');
  return { name, type, default: json.default ?? null, description: json.description ?? '' };
}

/** The catalogue as data: what GET /api/v1/cleaners answers. */
export function describeCleaners() {
  return CLEANER_NAMES.map((name) => {
    const { description, options } = CLEANER_CATALOGUE[name];
    return {
      name,
      description,
      default: DEFAULT_CLEANER_CHAIN.some((step) => step.name === name),
      options: Object.entries(options.shape as Record<string, z.ZodType>).map(([key, schema]) =>
        describeOption(key, schema),
      ),
    };
  });
}
