// The bench's pages: real article pages with expected content (fetched by fetch-corpus.sh) and generated
// listing pages (listings.ts). A fixed third of each set, chosen by a hash of the page's name, is held out:
// look at the other two thirds while changing a cleaner, and report both.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { generateListings } from './listings.js';
import { htmlText, type Snippets } from './score.js';
import { readGooseTexts, readRealworldSnippets, readSnippets } from './snippets.js';

export interface BenchPage {
  set: 'readability' | 'newspaper4k' | 'trafilatura' | 'realworld' | 'goose' | 'listings';
  name: string;
  /** The page's address, where its source gives one (trafilatura's evaluation and real-world pages). */
  url?: string;
  html: string;
  /** The page's whole expected content; empty where snippets say what is expected instead. */
  expected: string;
  snippets?: Snippets;
  holdout: boolean;
}

export const CORPUS_DIR =
  process.env.CLEANER_CORPUS ?? join(homedir(), '.cache', 'extract-service', 'cleaner-corpus');

/** Readability's test suite also has small made-up pages that test one rule; the bench wants real ones. */
const MIN_REAL_PAGE_BYTES = 15_000;

const heldOut = (set: string, name: string) =>
  createHash('sha256').update(`${set}/${name}`).digest()[0]! % 3 === 0;

function readabilityPages(): BenchPage[] {
  const root = join(CORPUS_DIR, 'readability');
  return readdirSync(root)
    .filter((name) => statSync(join(root, name, 'source.html')).size >= MIN_REAL_PAGE_BYTES)
    .map((name) => ({
      set: 'readability',
      name,
      html: readFileSync(join(root, name, 'source.html'), 'utf8'),
      expected: htmlText(readFileSync(join(root, name, 'expected.html'), 'utf8')),
      holdout: heldOut('readability', name),
    }));
}

function newspaperPages(): BenchPage[] {
  const root = join(CORPUS_DIR, 'newspaper4k');
  return readdirSync(root)
    .filter((file) => file.endsWith('.html'))
    .map((file) => {
      const name = file.slice(0, -'.html'.length);
      return {
        set: 'newspaper4k',
        name,
        html: readFileSync(join(root, file), 'utf8'),
        expected: readFileSync(join(root, `${name}.txt`), 'utf8'),
        holdout: heldOut('newspaper4k', name),
      };
    });
}

/** Pages saved in a legacy encoding read as windows-1252 rather than with replacement characters. */
function decode(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}

function trafilaturaPages(): BenchPage[] {
  const root = join(CORPUS_DIR, 'trafilatura');
  if (!existsSync(root)) return [];
  return readSnippets(readFileSync(join(root, 'data.go'), 'utf8'))
    .filter(({ file }) => existsSync(join(root, file)))
    .map(({ file, url, snippets }) => ({
      set: 'trafilatura',
      name: file,
      url,
      html: decode(readFileSync(join(root, file))),
      expected: '',
      snippets,
      holdout: heldOut('trafilatura', file),
    }));
}

/** trafilatura's real-world test pages, scored by the snippets its tests assert (as trafilatura's set is). */
function realworldPages(): BenchPage[] {
  const root = join(CORPUS_DIR, 'realworld');
  if (!existsSync(root)) return [];
  const read = (file: string) => readFileSync(join(root, file), 'utf8');
  return readRealworldSnippets(read('realworld_test.go'), read('realworld-mock_test.go'))
    .filter(({ file }) => existsSync(join(root, file)))
    .map(({ file, url, snippets }) => ({
      set: 'realworld',
      name: file,
      url,
      html: decode(readFileSync(join(root, file))),
      expected: '',
      snippets,
      holdout: heldOut('realworld', file),
    }));
}

/** GoOse's expected texts that are an article's (some tests expect an empty or one-line text). */
const MIN_GOOSE_TEXT = 1_000;

/** GoOse's test pages; the expected text is GoOse's own output, as Readability's is Readability's. */
function goosePages(): BenchPage[] {
  const root = join(CORPUS_DIR, 'goose');
  if (!existsSync(root)) return [];
  return readGooseTexts(readFileSync(join(root, 'crawler_test.go'), 'utf8'))
    .filter(({ domain, text }) => text.length >= MIN_GOOSE_TEXT && existsSync(join(root, `${domain}.html`)))
    .map(({ domain, text }) => ({
      set: 'goose',
      name: domain,
      html: decode(readFileSync(join(root, `${domain}.html`))),
      expected: text,
      holdout: heldOut('goose', domain),
    }));
}

export function loadCorpus(): BenchPage[] {
  if (!existsSync(join(CORPUS_DIR, 'readability')))
    throw new Error(`no corpus in ${CORPUS_DIR}: run bench/cleaners/fetch-corpus.sh first`);
  const listings = generateListings().map((page) => ({
    ...page,
    set: 'listings' as const,
    holdout: heldOut('listings', page.name),
  }));
  return [
    ...readabilityPages(),
    ...newspaperPages(),
    ...trafilaturaPages(),
    ...realworldPages(),
    ...goosePages(),
    ...listings,
  ];
}
