// The cleaner chain: each cleaner is an ordered pipeline of small steps (prepare the document, then one
// conversion), and a chain runs cleaners in order, each reading the previous one's output.
import {
  CLEANER_NAMES,
  type CleanerName,
  type CleanerOptions,
  isCleanerName,
  parseCleanerOptions,
} from '../../../shared/cleaners.js';
import { CategorizedError } from '../../../shared/errors.js';
import type { JobCleanerStep } from '../../../shared/schemas/job-spec.js';
import { bodyHtml, type CleanContext, collapseWhitespace, prepareDocument } from './document.js';
import { documentToMarkdown } from './markdown.js';
import { mainContent } from './readability.js';
import { sanitize } from './sanitize.js';
import { dropRowText, expandColspans } from './tables.js';
import { htmlToText } from './text.js';
import { boundWhitespace } from './whitespace.js';

export type { CleanContext } from './document.js';

/** A step of a job's cleaner chain (shared/schemas/job-spec.ts); runChain checks its name and options. */
export type CleanerStep = JobCleanerStep;

type Implementation<N extends CleanerName> = (
  content: string,
  options: CleanerOptions<N>,
  context: CleanContext,
) => string;

const IMPLEMENTATIONS: { [N in CleanerName]: Implementation<N> } = {
  markdown: (content, options, context) => {
    const $ = prepareDocument(content, options, context);
    expandColspans($);
    dropRowText($);
    boundWhitespace($);
    return documentToMarkdown($);
  },
  readability: (content, options, context) => {
    const seen = { title: '' };
    const $ = prepareDocument(content, options, context, seen);
    return mainContent($, options.keep_selectors, seen.title) ?? bodyHtml($).trim();
  },
  text: (content, options, context) => htmlToText(bodyHtml(prepareDocument(content, options, context))),
  html: (content, options, context) => {
    const $ = prepareDocument(content, options, context);
    collapseWhitespace($);
    return sanitize(bodyHtml($));
  },
  noop: (content) => content,
};

/** A cleaner on its own, options as a request sends them (defaults filled in, bad ones refused). */
export type Cleaner = (content: string, options?: Record<string, unknown>, context?: CleanContext) => string;

/**
 * Options already checked, by cleaner and options as JSON: a crawl's pages each bring the same chain (a copy
 * of it, through the thread boundary), and checking it costs more than the JSON. Bounded: a thread that sees
 * more distinct options than this starts over. Cleaners only read their options.
 */
const PARSED_OPTIONS_MAX = 64;
const parsedOptions = new Map<string, unknown>();

function parsedOptionsOf<N extends CleanerName>(name: N, options: unknown, at: string): CleanerOptions<N> {
  const key = `${name}\u0000${JSON.stringify(options ?? {})}`;
  const known = parsedOptions.get(key);
  if (known) return known as CleanerOptions<N>;
  const parsed = parseCleanerOptions(name, options, at);
  if (parsedOptions.size >= PARSED_OPTIONS_MAX) parsedOptions.clear();
  parsedOptions.set(key, parsed);
  return parsed;
}

function run<N extends CleanerName>(
  name: N,
  content: string,
  options: unknown,
  context: CleanContext,
  at: string,
) {
  return IMPLEMENTATIONS[name](content, parsedOptionsOf(name, options, at), context);
}

export const CLEANERS = Object.fromEntries(
  CLEANER_NAMES.map((name) => [
    name,
    ((content, options, context = {}) => run(name, content, options, context, 'options')) satisfies Cleaner,
  ]),
) as Record<CleanerName, Cleaner>;

export function runChain(content: string, chain: CleanerStep[], context: CleanContext = {}): string {
  return chain.reduce((acc, step, index) => {
    // Own keys only: "toString" or "constructor" are not cleaners.
    if (!isCleanerName(step.name))
      throw new CategorizedError('invalid_input', `unknown cleaner "${step.name}"`, false, {
        location: `cleaner_chain.${index}.name`,
      });
    return run(step.name, acc, step.options, context, `cleaner_chain.${index}.options`);
  }, content);
}
