// CSS selectors that name one element of a page, most stable first: its id or a naming attribute, its first
// class, its first class under its nearest named ancestor, its first class with one of its later ones, its
// place below that ancestor, its place in the body. Each may name look-alikes too; a candidate is kept only when it reads the model's value on the page,
// so one that also takes a neighbour (a subtitle beside a title) is dropped, and a more specific one stays.
import type { AnyNode, Element } from 'domhandler';
import { stableClasses } from './structure.js';
import { isElement } from './values.js';

const cssString = (s: string) => `"${s.replace(/["\\]/g, '\\$&')}"`;

/**
 * Attributes that name what an element is: microdata and meta names, and the hooks a site's own tests find
 * it by (`data-testid`, `data-testhook`, …), which stay where generated class names (CSS modules'
 * `recipe-header_title__tG0JE`) are not taken as names.
 */
const NAMING_ATTRS = [
  'itemprop',
  'property',
  'name',
  'data-testid',
  'data-test-id',
  'data-testhook',
  'data-test',
  'data-qa',
  'data-cy',
];
const HOOKS = NAMING_ATTRS.slice(3);

const namingValue = (el: Element, attr: string) => {
  const v = el.attribs[attr];
  return v && v.length <= 80 && !/[\n\r]/.test(v) ? v : null;
};

const stableId = (id: string | undefined) =>
  id && /^[A-Za-z][\w-]{0,60}$/.test(id) && !/\d{3,}/.test(id) ? id : null;

/**
 * CSS selectors for one element, most stable first, its place in the body last. Inside a list item's
 * container (`root`), relative to it: '' is the container itself.
 */
export function selectorsFor(el: Element, root?: Element): string[] {
  if (root) return relativeSelectors(el, root);
  const out: string[] = [];
  const tag = el.tagName;
  const id = stableId(el.attribs.id);
  if (id) out.push(`#${id}`);
  for (const attr of NAMING_ATTRS) {
    const v = namingValue(el, attr);
    if (v) out.push(`${tag}[${attr}=${cssString(v)}]`);
  }
  // The first class names what the element is; later ones are mostly its state (in-stock, on-sale, active).
  const [first, ...later] = stableClasses(el);
  const own = first ? `${tag}.${first}` : tag;
  if (first) out.push(own);
  const anchor = namedAncestor(el);
  if (anchor) out.push(`${anchor.selector} ${own}`);
  // A later class that names what the element is among look-alikes of one first class: WordPress recipe
  // cards write `wprm-recipe-details … wprm-recipe-total_time` on each of their times. A class that is only
  // a state (in-stock, active) names no node when the state changes, and such a "nothing" answers nothing
  // where the pages learned from showed a node (read.ts).
  for (const c of later) out.push(`${tag}.${first}.${c}`);
  // Likewise the ancestor's: a recipe card writes `mv-create-time mv-create-time-total` on each time's block,
  // and the value's own node has only the class all of them share.
  for (const c of anchor?.later ?? []) out.push(`${anchor?.selector}.${c} ${own}`);
  if (anchor) {
    // Its place below the ancestor: `div.module > h2:nth-of-type(1)` where `div.module h2` takes a subtitle too.
    out.push(`${anchor.selector} > ${structuralPath(el, anchor.el)}`);
  }
  out.push(structuralPath(el));
  return [...new Set(out)];
}

function relativeSelectors(el: Element, root: Element): string[] {
  if (el === root) return [''];
  const first = stableClasses(el)[0];
  const out: string[] = [];
  for (const attr of ['itemprop', 'property']) {
    const v = el.attribs[attr];
    if (v && v.length <= 80 && !/[\n\r]/.test(v)) out.push(`${el.tagName}[${attr}=${cssString(v)}]`);
  }
  if (first) out.push(`${el.tagName}.${first}`);
  out.push(`:scope > ${structuralPath(el, root)}`);
  return out;
}

/**
 * The nearest ancestor with an id, classes or a test hook, as a selector; named by its first class, with its
 * later ones (a few) beside.
 */
function namedAncestor(el: Element): { selector: string; el: Element; later?: string[] } | null {
  let node = el.parent;
  for (let hops = 0; node && isElement(node) && hops < 8; hops++, node = node.parent) {
    if (node.tagName === 'body' || node.tagName === 'html') return null;
    const id = stableId(node.attribs.id);
    if (id) return { selector: `#${id}`, el: node };
    const [first, ...later] = stableClasses(node);
    if (first) return { selector: `${node.tagName}.${first}`, el: node, later: later.slice(0, 3) };
    const hook = HOOKS.find((attr) => namingValue(node as Element, attr));
    if (hook)
      return {
        selector: `${node.tagName}[${hook}=${cssString(namingValue(node, hook) as string)}]`,
        el: node,
      };
  }
  return null;
}

/** body > div:nth-of-type(2) > … > span:nth-of-type(1): the element's place, strictly (below `root`). */
function structuralPath(el: Element, root?: Element): string {
  const steps: string[] = [];
  let node: Element | null = el;
  while (node && node !== root && node.tagName !== 'body' && node.tagName !== 'html') {
    const parent: AnyNode | null = node.parent;
    const tag: string = node.tagName;
    let index = 1;
    if (parent && 'children' in parent)
      for (const sib of parent.children) {
        if (sib === node) break;
        if (isElement(sib) && sib.tagName === tag) index++;
      }
    steps.unshift(`${tag}:nth-of-type(${index})`);
    node = parent && isElement(parent) ? parent : null;
  }
  return root ? steps.join(' > ') : ['body', ...steps].join(' > ');
}
