// One streaming pass over a page's HTML that collects what the app-shell and bot-wall checks look at, so
// neither needs a DOM. htmlparser2 is linear in the input, which matters for hostile pages.
import { Parser } from 'htmlparser2';

export interface PageSignals {
  title: string;
  /** Whitespace-collapsed text a reader would see (outside head, script, style, noscript, template). */
  text: string;
  /** Length of all of that text, about (spaces between chunks are not counted); `text` itself is capped. */
  textLength: number;
  /** Text inside <noscript> elements, collapsed and capped. */
  noscriptText: string;
  /** <script> elements (inline or not). */
  scripts: number;
  /** Client-side app mount points that hold neither text nor elements: '#root', 'app-root', … */
  emptyMountPoints: string[];
  iframeSrcs: string[];
  /** Lower-cased ids, classes, form actions and script sources, space-separated and capped. */
  markers: string;
}

const MAX_TEXT = 8_000;
const MAX_MARKERS = 8_000;
const HIDDEN = new Set(['script', 'style', 'noscript', 'template', 'head', 'title']);
/** Ids that React, Vue, Next, Nuxt, Gatsby, Svelte and friends mount into. */
const MOUNT_IDS = new Set([
  'root',
  'app',
  'main-app',
  '__next',
  '__nuxt',
  '___gatsby',
  'svelte',
  'application',
]);
const MOUNT_TAGS = new Set(['app-root']);
const MOUNT_ATTRS = ['data-reactroot', 'ng-app', 'ng-version', 'data-v-app'];

interface OpenMount {
  name: string;
  depth: number;
  filled: boolean;
}

export function scanPage(html: string): PageSignals {
  const state = new Scan();
  const parser = new Parser(
    {
      onopentag: (name, attrs) => state.open(name, attrs),
      onclosetag: (name) => state.close(name),
      ontext: (text) => state.text(text),
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return state.result();
}

class Scan {
  private readonly stack: string[] = [];
  private readonly mounts: OpenMount[] = [];
  private hiddenDepth = 0;
  private inTitle = false;
  private inNoscript = 0;
  private title = '';
  private visible = '';
  private visibleLength = 0;
  private noscript = '';
  private scripts = 0;
  private markers = '';
  private readonly empty: string[] = [];
  private readonly iframes: string[] = [];

  open(name: string, attrs: Record<string, string>): void {
    for (const mount of this.mounts) mount.filled = true;
    this.separate();
    this.stack.push(name);
    if (name === 'body') this.hiddenDepth = 0; // a missing </head> must not hide the body
    if (HIDDEN.has(name)) this.hiddenDepth += 1;
    if (name === 'title') this.inTitle = true;
    if (name === 'noscript') this.inNoscript += 1;
    if (name === 'script') this.scripts += 1;
    if (name === 'iframe' && attrs.src) this.iframes.push(attrs.src);
    this.mark(attrs.id, attrs.class, attrs.action, name === 'script' ? attrs.src : undefined);
    const mount = mountName(name, attrs);
    if (mount) this.mounts.push({ name: mount, depth: this.stack.length, filled: false });
  }

  close(name: string): void {
    // Unbalanced markup: close back to the nearest matching open element, as browsers roughly do.
    const at = this.stack.lastIndexOf(name);
    if (at === -1) return;
    this.separate();
    while (this.stack.length > at) {
      const closing = this.stack.pop()!;
      const mount = this.mounts.at(-1);
      if (mount && mount.depth === this.stack.length + 1) {
        this.mounts.pop();
        if (!mount.filled) this.empty.push(mount.name);
      }
      if (HIDDEN.has(closing)) this.hiddenDepth = Math.max(0, this.hiddenDepth - 1);
      if (closing === 'title') this.inTitle = false;
      if (closing === 'noscript') this.inNoscript = Math.max(0, this.inNoscript - 1);
    }
  }

  text(raw: string): void {
    const text = raw.replace(/\s+/g, ' ');
    if (this.inTitle) this.title += text;
    if (this.inNoscript > 0 && this.noscript.length < MAX_TEXT) this.noscript += text;
    if (this.hiddenDepth > 0) return;
    const words = text.trim();
    if (words !== '') for (const mount of this.mounts) mount.filled = true;
    this.visibleLength += words.length;
    if (this.visible.length < MAX_TEXT) this.visible += text;
  }

  /** Element boundaries separate words ("<h1>A</h1><p>B</p>" reads "A B"); extra spaces collapse later. */
  private separate(): void {
    if (this.hiddenDepth === 0 && this.visible !== '' && !this.visible.endsWith(' ')) this.visible += ' ';
  }

  private mark(...values: Array<string | undefined>): void {
    for (const value of values) {
      if (value && this.markers.length < MAX_MARKERS) this.markers += ` ${value.toLowerCase()}`;
    }
  }

  result(): PageSignals {
    this.close(this.stack[0] ?? ''); // closes whatever is still open, reporting empty mount points
    const visible = this.visible.replace(/\s+/g, ' ').trim();
    return {
      title: this.title.replace(/\s+/g, ' ').trim(),
      text: visible.slice(0, MAX_TEXT),
      textLength: Math.max(visible.length, this.visibleLength),
      noscriptText: this.noscript.replace(/\s+/g, ' ').trim().slice(0, MAX_TEXT),
      scripts: this.scripts,
      emptyMountPoints: this.empty,
      iframeSrcs: this.iframes,
      markers: this.markers.trim(),
    };
  }
}

function mountName(tag: string, attrs: Record<string, string>): string | null {
  if (attrs.id && MOUNT_IDS.has(attrs.id)) return `#${attrs.id}`;
  if (MOUNT_TAGS.has(tag)) return tag;
  const attr = MOUNT_ATTRS.find((a) => a in attrs);
  return attr ? `[${attr}]` : null;
}
