// The recipe pages of bench:real and bench:real:learned: the recipe-scrapers project's test pages (MIT),
// unpacked from /work/shared/data into a temporary folder for the run and deleted after; each page with its
// site's split (split.ts) and its expected values, and the fields both benches ask for.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Split, splitOf } from './split.js';

export const RECIPE_DATA = '/work/shared/data/recipe-pages.tar.xz';

/** Bench field → the expected value's key in the test data. */
export const EXPECTED: Record<string, string> = {
  title: 'title',
  author: 'author',
  ingredients: 'ingredients',
  instructions: 'instructions_list',
  description: 'description',
  image: 'image',
  total_time: 'total_time',
  yields: 'yields',
};
export const FIELDS = Object.keys(EXPECTED);

/** The fields as a user would type them (bench:real also asks them all as strings). */
export const TYPED_SCHEMA = {
  title: 'string',
  author: 'string',
  ingredients: ['string'],
  instructions: ['string'],
  description: 'string',
  image: 'string',
  total_time: 'number',
  yields: 'string',
} as const;

export interface RecipePage {
  site: string;
  page: string;
  split: Split;
  html: string;
  expected: Record<string, unknown>;
}

/** The pages of the sites chosen (all when `sites` is empty), by site then file name. */
export function* recipePages(
  root: string,
  only: { sites?: string[]; split?: string } = {},
): Generator<RecipePage> {
  const dir = join(root, 'tests', 'test_data');
  for (const site of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!site.isDirectory()) continue; // a stray page without its expected values
    if (only.sites?.length && !only.sites.includes(site.name)) continue;
    const split = splitOf(site.name);
    if (only.split && only.split !== split) continue;
    const folder = join(dir, site.name);
    for (const file of readdirSync(folder).sort()) {
      if (!file.endsWith('.testhtml')) continue;
      const json = join(folder, file.replace(/\.testhtml$/, '.json'));
      if (!existsSync(json)) continue;
      const expected = asLines(JSON.parse(readFileSync(json, 'utf8')) as Record<string, unknown>);
      const html = readFileSync(join(folder, file), 'utf8');
      yield { site: site.name, page: `${site.name}/${file}`, split, html, expected };
    }
  }
}

/**
 * The expected values with the ingredients as a list of lines: one page of the test data (cookinglight.com's)
 * has them in the project's older form, one string of lines, where a model asked for a list answers lines.
 */
function asLines(expected: Record<string, unknown>): Record<string, unknown> {
  const v = expected.ingredients;
  if (typeof v !== 'string') return expected;
  const lines = v
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return { ...expected, ingredients: lines };
}

/** The page's URL: its canonical one when the test data has it. */
export const urlOf = (expected: Record<string, unknown>) =>
  typeof expected.canonical_url === 'string' ? expected.canonical_url : 'https://example.com/';

/** Runs `work` over the unpacked data, deleting it after (a folder given is read as it is: unpacked already). */
export async function withRecipeData<T>(archive: string, work: (root: string) => Promise<T>): Promise<T> {
  if (statSync(archive).isDirectory()) return work(archive);
  const dir = mkdtempSync(join(tmpdir(), 'bench-real-'));
  try {
    execFileSync('tar', ['-xJf', archive, '-C', dir]);
    return await work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
