// What bench:real needs of a corpus of real pages: where its archive is, the fields it has expected values
// for, the two schemas a user would write for them, a plain structured-data reader to compare with, and how
// an answer is judged. Recipes (recipes.ts) and news articles (articles.ts) are the two corpora.
import type { StructuredItem } from '../../shared/structured-data.js';
import type { Split } from './split.js';

export interface BenchPage {
  /** How the page is named in the list of wrong values. */
  page: string;
  split: Split;
  html: string;
  url: string;
  /** The expected values by bench field; a field without one is not judged on this page. */
  expected: Record<string, unknown>;
  /** Fields with an expected value the stored page does not hold in any form: not judged (articles.ts). */
  unjudged?: string[];
  /** Expected values replaced by what the stored page states, and why (articles.ts). */
  corrected?: string[];
}

/** Which pages to read: some sites only, one split only. */
export interface PageFilter {
  sites?: string[];
  split?: string;
}

/** One schema a user would write: per bench field, the schema's key for it and its type. */
export type Variant = Record<string, [key: string, type: unknown]>;

export interface Corpus {
  /** The table's heading, crediting the data. */
  heading: string;
  archive: string;
  fields: string[];
  variants: { strings: Variant; typed: Variant };
  /** The pages of the unpacked archive, in a fixed order. */
  pages(dir: string, filter: PageFilter): Iterable<BenchPage>;
  /** The plain reader's answer by bench field. */
  plain(items: StructuredItem[]): Record<string, unknown>;
  /** Whether an answer equals the expected value. */
  same(field: string, got: unknown, expected: unknown): boolean;
  /** For a wrong list, where it first differs. */
  differs?(got: unknown, expected: unknown): string | undefined;
}

/** A variant as the schema it stands for: `{key: type}`. */
export const schemaOf = (variant: Variant) => Object.fromEntries(Object.values(variant));

/** A variant's answers by bench field. */
export const byField = (variant: Variant, data: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(variant).map(([field, [key]]) => [field, data[key]]));
