// The cleaner chain: an ordered list of small steps over stored content (decisions.md "Schemas and
// cleaning"). The default chain is [markdown]; more cleaners plug into CLEANERS.
import TurndownService from 'turndown';
import { CategorizedError } from '../shared/errors.js';
import type { ActivityDeps } from './deps.js';
import { categorized } from './failure.js';

export interface CleanerStep {
  name: string;
  options?: Record<string, unknown>;
}

export interface CleanContentInput {
  jobId: string;
  sourceId: string;
  targetId: string;
  chain: CleanerStep[];
}

export interface CleanContentResult {
  contentId: string;
  chars: number;
  durationMs: number;
}

type Cleaner = (content: string, options: Record<string, unknown>) => string;

const NOISE = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'IFRAME', 'SVG', 'CANVAS', 'HEAD']);

function markdown(html: string): string {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
  });
  service.remove((node) => NOISE.has(node.nodeName.toUpperCase()));
  // Runs of blank lines, including the whitespace-only ones turndown leaves for <br>, become one.
  return service
    .turndown(html)
    .replace(/\n(?:[ \t]*\n){2,}/g, '\n\n')
    .trim();
}

export const CLEANERS: Record<string, Cleaner> = {
  markdown: (content) => markdown(content),
  noop: (content) => content,
};

export function runChain(content: string, chain: CleanerStep[]): string {
  return chain.reduce((acc, step) => {
    // Own keys only: "toString" or "constructor" are not cleaners.
    const cleaner = Object.hasOwn(CLEANERS, step.name) ? CLEANERS[step.name] : undefined;
    if (!cleaner) throw new CategorizedError('invalid_input', `unknown cleaner "${step.name}"`);
    return cleaner(acc, step.options ?? {});
  }, content);
}

export function makeCleanContent(deps: ActivityDeps) {
  return async function cleanContent(input: CleanContentInput): Promise<CleanContentResult> {
    return categorized(async () => {
      const started = Date.now();
      const source = await deps.contents.get(input.sourceId);
      const cleaned = source.content_type === 'text/plain' ? source.body : runChain(source.body, input.chain);
      if (!cleaned.trim())
        throw new CategorizedError('insufficient_content', 'the page has no readable content');
      await deps.contents.put({ ...source, _id: input.targetId, kind: 'cleaned', body: cleaned });
      return { contentId: input.targetId, chars: cleaned.length, durationMs: Date.now() - started };
    });
  };
}
