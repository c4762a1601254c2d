// The variant shop (--variants): one item template as real shops serve it, every page a little different —
// a subtitle inside the title heading (never part of the name), reviews and recommendation blocks of
// different lengths with items that are not alike, optional blocks present or absent, extra wrappers.
// Deterministic per item, like the rest of the catalogue.

export interface Review {
  stars: number;
  author: string;
  text: string;
  verified: boolean;
  photo: boolean;
  reply: boolean;
}

export interface Recommendation {
  title: string;
  items: { id: number; badge: string | null }[];
}

/** How one item page of the variant shop departs from its neighbours (all within the one template). */
export interface Look {
  /** Shown inside the product's title heading, after the name; the name alone is the truth. */
  subtitle: string | null;
  /** A promotion block before the buy box. */
  banner: boolean;
  /** The buy box inside an extra wrapper element. */
  buyBoxWrapper: boolean;
  /** The whole main block inside an extra container. */
  pageWrapper: boolean;
  /** A video block after the description. */
  video: boolean;
  /** A size chart table after the features. */
  sizeChart: boolean;
  reviews: Review[];
  recommendations: Recommendation[];
}

const SUBTITLES = ['2026 edition', 'Limited colourway', 'Gift set', 'With carry case', 'Refurbished'];
const AUTHORS = ['Maya', 'Jonas', 'Priya', 'Tom', 'Aiko', 'Lena', 'Omar', 'Sofia'];
const REVIEW_TEXTS = [
  'Exactly as described and arrived quickly.',
  'Good value for the price, would buy again.',
  'The colour is a bit darker than in the photos.',
  'Solid build quality. My second one already.',
  'Works well, though the instructions could be clearer.',
];
const REC_TITLES = ['Customers also bought', 'Complete the look', 'Recently viewed', 'More from this brand'];
const BADGES = ['Sale', 'New', 'Bestseller'];

/** mulberry32 (as the catalogue's), seeded apart from the product's own facts. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;

/** Item k's look: about a quarter with a subtitle, optional blocks on 15–35%, 0–12 reviews, 0–3 blocks. */
export function lookOf(k: number, items: number): Look {
  const r = random(k * 40503 + 17);
  const reviews = Array.from({ length: Math.floor(r() * 13) }, () => ({
    stars: 1 + Math.floor(r() * 5),
    author: pick(r, AUTHORS),
    text: pick(r, REVIEW_TEXTS),
    verified: r() < 0.6,
    photo: r() < 0.2,
    reply: r() < 0.15,
  }));
  const recommendations = Array.from({ length: Math.floor(r() * 4) }, (_, i) => ({
    title: REC_TITLES[i] as string,
    items: Array.from({ length: 2 + Math.floor(r() * 7) }, () => ({
      id: 1 + Math.floor(r() * items),
      badge: r() < 0.3 ? pick(r, BADGES) : null,
    })),
  }));
  return {
    subtitle: r() < 0.25 ? pick(r, SUBTITLES) : null,
    banner: r() < 0.2,
    buyBoxWrapper: r() < 0.3,
    pageWrapper: r() < 0.25,
    video: r() < 0.15,
    sizeChart: r() < 0.35,
    reviews,
    recommendations,
  };
}
