// Images: a structured image counts as shown when the page shows that file, at any size. Pages and their
// structured data name one photo by different renditions: a query ("?w=1200"), a WordPress size suffix
// ("-300x200.jpg", "-scaled.jpg") or an image CDN in front ("i0.wp.com/"). Only absolute URLs answer: a
// relative one cannot be resolved here.
const MARKDOWN_IMAGE = /!\[[^\]]{0,2000}\]\(\s*<?([^)\s>]+)/g;
const MAX_IMAGES = 5_000;

/** The file an image URL names, whatever its rendition. */
export function imageKey(url: string): string {
  return url
    .trim()
    .toLowerCase()
    .replace(/^(?:https?:)?\/\//, '')
    .replace(/^i\d\.wp\.com\//, '')
    .replace(/^www\./, '')
    .replace(/[?#].*$/, '')
    .replace(/-(?:\d+x\d+|scaled)(?=\.\w+$)/, '');
}

/** The files of the images a page's markdown shows. */
export function pageImages(text: string): Set<string> {
  const images = new Set<string>();
  for (const m of text.matchAll(MARKDOWN_IMAGE)) {
    images.add(imageKey(m[1] as string));
    if (images.size >= MAX_IMAGES) break;
  }
  return images;
}

export const isAbsoluteUrl = (url: string): boolean => /^https?:\/\/[^/\s]+/i.test(url.trim());
