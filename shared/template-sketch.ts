// A page's structure as a small MinHash sketch (activities/reading/learned/structure.ts makes its features),
// and how close two sketches are: the share of equal minima estimates the Jaccard similarity of the two
// feature sets. Pure and dependency-free: the HTML pool matches pages with it, the store matches again when
// it assigns a page a template, so two pages of a new template arriving at once land in one.

/** Minima per sketch: the estimate's standard error is about sqrt(J(1-J)/128) ≤ 0.045. */
export const SKETCH_SIZE = 128;

/**
 * Pages at least this similar to one of a template's exemplars belong to it. Pages of one template that
 * differ in their optional blocks, list lengths and wrappers measured 0.53 and more on the bench's variant
 * shop (median 0.8); a listing against its shop's product pages at most 0.33.
 */
export const SAME_TEMPLATE = 0.45;

/** Verified templates win over a slightly closer one still learning. */
const VERIFIED_BONUS = 0.05;

/** FNV-1a over a string's UTF-16 units: a feature's 32-bit hash. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** murmur3's finaliser: one of SKETCH_SIZE hash functions is fmix(h ^ seed). */
function fmix(x: number): number {
  let h = x;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const SEEDS = Array.from({ length: SKETCH_SIZE }, (_, i) => fmix(0x9e3779b9 * (i + 1)));

/**
 * The sketch of a set of feature hashes: per hash function the minimum, kept as its low 16 bits (b-bit
 * MinHash: two unequal minima agree by chance once in 65,536), base64 — 344 characters.
 */
export function sketchOf(hashes: Iterable<number>): string {
  const mins = new Uint32Array(SKETCH_SIZE).fill(0xffffffff);
  for (const h of hashes)
    for (let i = 0; i < SKETCH_SIZE; i++) {
      const v = fmix(h ^ (SEEDS[i] as number));
      if (v < (mins[i] as number)) mins[i] = v;
    }
  const low = new Uint16Array(SKETCH_SIZE);
  for (let i = 0; i < SKETCH_SIZE; i++) low[i] = (mins[i] as number) & 0xffff;
  return Buffer.from(low.buffer).toString('base64');
}

const decoded = (sketch: string): Uint16Array | null => {
  const buf = Buffer.from(sketch, 'base64');
  if (buf.length !== SKETCH_SIZE * 2) return null;
  return new Uint16Array(buf.buffer, buf.byteOffset, SKETCH_SIZE);
};

/** The estimated Jaccard similarity of the two sketches' feature sets (0 for a malformed one). */
export function similarity(a: string, b: string): number {
  const x = decoded(a);
  const y = decoded(b);
  if (!x || !y) return 0;
  let same = 0;
  for (let i = 0; i < SKETCH_SIZE; i++) if (x[i] === y[i]) same++;
  return same / SKETCH_SIZE;
}

/** A known template as matching sees it: its key, status and the sketches of a few of its pages. */
export interface TemplateExemplars {
  key: string;
  status: 'learning' | 'verified' | 'unlearnable';
  sketches: string[];
}

/**
 * The template a page's sketch belongs to: the most similar of those at least SAME_TEMPLATE alike (its
 * closest exemplar counts), verified ones preferred by a small margin; null when none is.
 */
export function bestTemplate<T extends TemplateExemplars>(
  sketch: string,
  templates: readonly T[],
): { template: T; similarity: number } | null {
  let best: { template: T; similarity: number; score: number } | null = null;
  for (const template of templates) {
    let s = 0;
    for (const exemplar of template.sketches) s = Math.max(s, similarity(sketch, exemplar));
    if (s < SAME_TEMPLATE) continue;
    const score = s + (template.status === 'verified' ? VERIFIED_BONUS : 0);
    if (!best || score > best.score) best = { template, similarity: s, score };
  }
  return best ? { template: best.template, similarity: best.similarity } : null;
}
