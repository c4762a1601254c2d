// The cleaner bench's real pages: the article-extraction dataset of AndyTheFactory (Apache-2.0; 424 news
// pages, two from each of 212 sites, each with a hand-cleaned body), unpacked into a temporary folder for
// the run and deleted after. Sites, not pages, are split: a fixed third of the sites (by a hash of the
// site's name) is held out, never looked at while tuning, and reported apart.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Split = 'tune' | 'held-out';

export interface ArticlePage {
  id: string;
  site: string;
  url: string;
  path: string;
  html: string;
  /** The hand-cleaned body. */
  body: string;
  /** Title and authors: page metadata a cleaner may send, never what should be left out. */
  metadata: string;
  split: Split;
}

interface Entry {
  title: string;
  authors: string | string[];
  articleBody: string;
  site: string;
  url: string;
}

/** "https://www.example.com/" and "http://example.com" are one site. */
export const siteName = (site: string) =>
  site
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/\/+$/, '');

export const splitOf = (site: string): Split =>
  createHash('sha256').update(siteName(site)).digest()[0]! % 3 === 0 ? 'held-out' : 'tune';

/** Unpacks the archive, hands its pages to `use`, and deletes the folder whatever happens. */
export async function withArticlePages<T>(archive: string, use: (pages: ArticlePage[]) => Promise<T>) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cleaners-'));
  try {
    execFileSync('tar', ['-xJf', archive, '-C', dir]);
    const entries = JSON.parse(readFileSync(join(dir, 'articles.json'), 'utf8')) as Record<string, Entry>;
    const pages: ArticlePage[] = [];
    for (const [id, entry] of Object.entries(entries).sort(([a], [b]) => a.localeCompare(b))) {
      const path = join(dir, 'html', `${id}.html`);
      if (!existsSync(path)) continue; // three pages of the dataset have no HTML
      const authors = Array.isArray(entry.authors) ? entry.authors.join(' ') : entry.authors;
      pages.push({
        id,
        site: siteName(entry.site),
        url: entry.url,
        path,
        html: readFileSync(path, 'utf8'),
        body: entry.articleBody,
        metadata: `${entry.title}\n${authors}`,
        split: splitOf(entry.site),
      });
    }
    return await use(pages);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
