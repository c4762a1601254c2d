// Bounds on the whitespace a page can put in a row, for the Markdown cleaner: turndown ends every conversion
// with `/[\t\r\n\s]+$/` over its whole output, which costs the square of each whitespace run — a <pre> of
// 400,000 spaces, a paragraph of &nbsp;s or thousands of <br>s took minutes. Runs this long carry no content.
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, ParentNode } from 'domhandler';

/** Longer runs of whitespace in a text node are cut to this many characters (code indentation fits). */
export const MAX_WHITESPACE_RUN = 64;
/** Line breaks in a row with no text or image between them: more show nothing more. */
export const MAX_LINE_BREAKS = 2;

const LONG_RUN = new RegExp(`\\s{${MAX_WHITESPACE_RUN + 1},}`, 'g');

/**
 * One walk in document order: text nodes lose the tail of long whitespace runs (turndown collapses ordinary
 * spaces outside <pre> itself, but not those in <pre> nor non-breaking ones), and <br>s beyond
 * MAX_LINE_BREAKS in a row go.
 */
export function boundWhitespace($: CheerioAPI) {
  const stack: AnyNode[] = $('body').contents().toArray().reverse();
  const surplus = new Set<AnyNode>();
  let breaks = 0;
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'text') {
      if (node.data.length > MAX_WHITESPACE_RUN)
        node.data = node.data.replace(LONG_RUN, (run) => run.slice(0, MAX_WHITESPACE_RUN));
      if (node.data.trim()) breaks = 0;
    } else if (node.type === 'tag') {
      if (node.name === 'br') {
        if (++breaks > MAX_LINE_BREAKS) surplus.add(node);
      } else if (node.name === 'img') breaks = 0;
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }
  removeAll(surplus);
}

/** Removes nodes with one pass over each parent's children (one removal at a time shifts the array each time). */
function removeAll(nodes: Set<AnyNode>) {
  const parents = new Set<ParentNode>();
  for (const node of nodes) if (node.parent) parents.add(node.parent);
  for (const parent of parents) {
    parent.children = parent.children.filter((child) => !nodes.has(child));
    parent.children.forEach((child, i) => {
      child.prev = parent.children[i - 1] ?? null;
      child.next = parent.children[i + 1] ?? null;
    });
  }
  for (const node of nodes) {
    node.parent = null;
    node.prev = null;
    node.next = null;
  }
}
