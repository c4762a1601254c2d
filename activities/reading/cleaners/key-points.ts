// The key points some sites put between the headline and the body: a short list of sentences ("Key points",
// "Highlights") that sums the story up. Readability scores the body's paragraphs and leaves the list in the
// page's header, with the standfirst (parts.ts). Found here: the first list between the page's headline and
// the first paragraph of the pick whose items all read as sentences. Linear: one walk in document order,
// ending at that paragraph or after MAX_LOOKS elements past the headline.
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';

/** Elements looked at after the headline, at most. */
const MAX_LOOKS = 400;
/** A list of key points: this many items at least and at most, ... */
const MIN_POINTS = 2;
const MAX_POINTS = 8;
/** ... each a sentence of this many characters, ... */
const MIN_POINT_CHARS = 30;
const MAX_POINT_CHARS = 400;
/** ... and not a list of links (other stories' headlines). */
const MAX_LINK_SHARE = 0.3;
const SENTENCE_END = /[.!?…。！？]["'”’»)]*$/u;
const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim();
const isTag = (node: AnyNode): node is Element => node.type === 'tag';

function isKeyPoints($: CheerioAPI, list: Element, articleText: string): boolean {
  const items = list.children.filter(isTag);
  if (items.length < MIN_POINTS || items.length > MAX_POINTS) return false;
  return items.every((item) => {
    if (item.name !== 'li') return false;
    const text = squeeze($(item).text());
    if (text.length < MIN_POINT_CHARS || text.length > MAX_POINT_CHARS || !SENTENCE_END.test(text))
      return false;
    const links = squeeze($(item).find('a').text()).length;
    return links <= MAX_LINK_SHARE * text.length && !articleText.includes(text);
  });
}

/**
 * The list of key points between `headline` and `firstParagraph` (the pick's first paragraph in the page),
 * when its items read as sentences not already in `articleText`; null otherwise.
 */
export function keyPoints(
  $: CheerioAPI,
  headline: Element,
  firstParagraph: Element,
  articleText: string,
): Element | null {
  const body = $('body').get(0);
  if (!body) return null;
  const inArticle = squeeze(articleText);
  let looks = -1; // counting starts at the headline
  const stack: AnyNode[] = [body];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (!isTag(node)) continue;
    if (node === firstParagraph || looks >= MAX_LOOKS) return null;
    if (node === headline) looks = 0;
    else if (looks >= 0) {
      looks++;
      if ((node.name === 'ul' || node.name === 'ol') && isKeyPoints($, node, inArticle)) return node;
    }
    for (let index = node.children.length - 1; index >= 0; index--) stack.push(node.children[index]!);
  }
  return null;
}
