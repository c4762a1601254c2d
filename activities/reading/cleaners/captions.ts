// Text that belongs to a picture, not to the article: captions and photo credits (however they are marked up,
// not only as <figcaption>), screen-reader labels ("Image copyright"), and a video player's title, duration and
// source beside its poster. Found on the cleaner bench's dev pages (BBC, CNN and news sites' own caption
// classes); a picture itself stays. Linear: counts are taken in one bottom-up walk without recursion, and a
// picture looks up at most MAX_BOX_DEPTH ancestors.
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';

/** Class words that name a caption or a credit: "image-caption", "wp-caption-text", "story-image-copyright". */
const CAPTION_WORDS = new Set(['caption', 'captions', 'credit', 'credits', 'copyright']);
/** Classes that hide text from the eye and leave it for screen readers: labels, not the article's text. */
const HIDDEN_NAMES = new Set([
  'sr-only',
  'visually-hidden',
  'visuallyhidden',
  'screen-reader-text',
  'screen-reader-only',
  'off-screen',
  'offscreen',
  'element-invisible',
  'element-hidden',
]);
const MAX_NAME_PARTS = 4;
/** A caption is short; a container named after one that holds more is not left out. */
export const CAPTION_CHARS = 400;

const classNames = (element: Element) => (element.attribs.class ?? '').toLowerCase().split(/\s+/);

/** A heading is never a caption, whatever its class says ("caption-s5": a text style's name); it can be hidden. */
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

function namesCaption(element: Element, screenReader: boolean): boolean {
  return classNames(element).some((name) => {
    if (screenReader && HIDDEN_NAMES.has(name)) return true;
    // A design system's prefix before the name ("u-visually-hidden", "lrv-a-screen-reader-only").
    if (screenReader)
      for (const hidden of HIDDEN_NAMES)
        if (name.endsWith(`-${hidden}`) || name.endsWith(`_${hidden}`)) return true;
    if (HEADINGS.has(element.name)) return false;
    const parts = name.split(/[-_]+/);
    return parts.length <= MAX_NAME_PARTS && parts.some((part) => CAPTION_WORDS.has(part));
  });
}

interface Counts {
  /** Characters of text, without whitespace. */
  chars: number;
  /** Pictures (img, picture, video), spacers included. */
  pictures: number;
  /** It or an element inside it is spared (a kept element). */
  spared: boolean;
}

/** <picture> holds an <img>: it is not counted again. */
const PICTURE_TAGS = new Set(['img', 'video']);

/** Counts under every element of `root`: one walk, each element pushed to open it and again to close it. */
function countAll(root: Element, spare: (element: Element) => boolean): Map<Element, Counts> {
  const counts = new Map<Element, Counts>();
  const stack: { element: Element; open: boolean }[] = [{ element: root, open: true }];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const { element } = entry;
    if (entry.open) {
      const own: Counts = {
        chars: 0,
        pictures: PICTURE_TAGS.has(element.name) ? 1 : 0,
        spared: spare(element),
      };
      for (const child of element.children)
        if (child.type === 'text') own.chars += child.data.replace(/\s+/g, '').length;
      counts.set(element, own);
      stack.push({ element, open: false });
      for (const child of element.children)
        if (child.type === 'tag') stack.push({ element: child, open: true });
    } else if (element !== root && element.parent) {
      const total = counts.get(element)!;
      const parent = counts.get(element.parent as Element)!;
      parent.chars += total.chars;
      parent.pictures += total.pictures;
      parent.spared ||= total.spared;
    }
  }
  return counts;
}

/**
 * Removes elements whose class names a caption, a credit or screen-reader text, when short and without a
 * picture (a figure "with-caption" stays; its caption goes). Runs before Readability, which reads no class
 * word as a caption and keeps them in the article. Elements `spare` says so of, and those around them, stay.
 */
export function dropCaptions(
  $: CheerioAPI,
  spare: (element: Element) => boolean,
  { screenReader = true }: { screenReader?: boolean } = {},
) {
  const body = $('body').get(0);
  if (!body) return;
  const counts = countAll(body, spare);
  const doomed: Element[] = [];
  // Top-down: a removed element's inner captions go with it.
  const stack: Element[] = [body];
  for (let element = stack.pop(); element; element = stack.pop()) {
    const count = counts.get(element)!;
    if (
      element !== body &&
      namesCaption(element, screenReader) &&
      !count.spared &&
      count.pictures === 0 &&
      count.chars <= CAPTION_CHARS
    )
      doomed.push(element);
    else for (const child of element.children) if (child.type === 'tag') stack.push(child);
  }
  for (const element of doomed) $(element).remove();
}

/** The text around a picture is its caption when the box holding both has at most this much (no spaces). */
export const MEDIA_BOX_CHARS = 300;
const MAX_BOX_DEPTH = 6;
/** A picture's box ends at a list item, a cell or a paragraph: their text is the item's, not the picture's. */
const BOX_STOP_TAGS = new Set([
  'p',
  'li',
  'dd',
  'dt',
  'td',
  'th',
  'tr',
  'table',
  'ul',
  'ol',
  'dl',
  'body',
  'article',
  'main',
  'section',
]);
/** A parent of this many boxes with pictures is a gallery or a listing: its items' text stays. */
const GALLERY_ITEMS = 3;

/**
 * A picture's caption, credit and player labels after Readability: the largest box around one picture (at
 * most MAX_BOX_DEPTH levels up, no paragraph or list item, no other picture, no kept element) with at most
 * MEDIA_BOX_CHARS of text becomes the picture alone. Boxes among GALLERY_ITEMS or more like them (a
 * listing's cards, a gallery) stay whole.
 */
export function dropPictureText(
  $: CheerioAPI,
  root: Element,
  isKept: (element: Element) => boolean,
  isSpacer: (element: Element) => boolean,
) {
  const counts = countAll(root, isKept);
  const gallery = new Map<Element, boolean>();
  const isGallery = (parent: Element) => {
    let known = gallery.get(parent);
    if (known === undefined) {
      known =
        parent.children.filter((child) => child.type === 'tag' && counts.get(child as Element)!.pictures > 0)
          .length >= GALLERY_ITEMS;
      gallery.set(parent, known);
    }
    return known;
  };
  const boxes = new Map<Element, Element>();
  for (const [element] of counts) {
    if ((element.name !== 'img' && element.name !== 'video') || isSpacer(element)) continue;
    let box: Element | null = null;
    let at = element.parent as Element | null;
    for (let depth = 0; at && at !== root && depth < MAX_BOX_DEPTH; depth++) {
      const count = counts.get(at);
      if (!count || BOX_STOP_TAGS.has(at.name) || count.pictures !== 1 || count.spared) break;
      if (count.chars > MEDIA_BOX_CHARS) break;
      box = at;
      at = at.parent as Element | null;
    }
    if (!box || counts.get(box)!.chars === 0 || (box.parent && isGallery(box.parent as Element))) continue;
    const picture =
      element.parent && (element.parent as Element).name === 'picture' ? element.parent : element;
    boxes.set(box, picture as Element);
  }
  for (const [box, picture] of boxes) $(box).replaceWith(picture);
}
