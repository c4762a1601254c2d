// The kind of a bench page (article, forum, product, listing, documentation, service), told by rules on its
// address and markup rather than by hand, so that anyone can rerun and check it: a forum's software or its
// thread URL, a product's schema.org type, a documentation site's generator or path, a listing's index-like
// path (a home page, a category, a tag, an archive, a search), a service page's path (about, contact, prices). First rule wins, in
// that order; anything else is an article. Rough by design: it sorts trafilatura's evaluation pages into
// kinds for a per-kind score, it is no classifier of the service's.
export const PAGE_KINDS = ['article', 'forum', 'product', 'listing', 'documentation', 'service'] as const;
export type PageKind = (typeof PAGE_KINDS)[number];

/** Only the head and start of a page are read: enough for its generator, its types and its teasers. */
const READ_CHARS = 400_000;

const FORUM_PATH =
  /\/(forums?|foren|board|threads?|topic|community\/t|questions)\/|viewtopic\.php|showthread\.php|\/comments\/[a-z0-9]+\/|\/t\d+-|[?&](topic|thread)=/i;
const FORUM_MARKUP =
  /<meta[^>]{0,200}generator[^>]{0,200}(phpbb|vbulletin|xenforo|discourse|mybb|invision|simple machines)|DiscussionForumPosting|schema\.org\/(QAPage|Question)"|"@type":\s{0,4}"(QAPage|DiscussionForumPosting)"|class="[^"]{0,80}\b(postbody|post-message|bbWrapper|messageText|forumpost)\b/i;
const PRODUCT_MARKUP =
  /"@type":\s{0,4}"Product"|itemtype="https?:\/\/schema\.org\/Product"|property="og:type"\s{1,4}content="product/i;
const DOCS_HOST = /^(docs?|wiki|developer|developers|manual|help|support)\./i;
const DOCS_PATH = /\/(docs?|documentation|manual|reference|api|wiki|handbook|guide|howto|faq|help|man)\//i;
const DOCS_MARKUP =
  /<meta[^>]{0,200}generator[^>]{0,200}(sphinx|mkdocs|docusaurus|mediawiki|hugo-book|gitbook)/i;
const LISTING_PATH =
  /\/(category|categories|kategorie|tag|tags|archives?|topics|search|suche|page\/\d+|blog|news|aktuelles|neuigkeiten)\/?$|[?&](page|s|q|cat|tag)=/i;
/** The page's last path segment names a service page. */
const SERVICE_PATH =
  /\/(about|about-us|ueber-uns|uber-uns|contact|kontakt|impressum|imprint|services?|leistungen|[a-z-]{0,40}planung|pricing|preise|team|jobs|careers|karriere)(\/|\.html?)?$/i;

export function pageKind(url: string, html: string): PageKind {
  const head = html.slice(0, READ_CHARS);
  let host = '';
  let path = '/';
  try {
    const parsed = new URL(url);
    host = parsed.hostname;
    path = `${parsed.pathname}${parsed.search}`;
  } catch {
    // No address: the markup alone decides.
  }
  if (FORUM_PATH.test(path) || FORUM_MARKUP.test(head)) return 'forum';
  if (PRODUCT_MARKUP.test(head)) return 'product';
  if (DOCS_HOST.test(host) || DOCS_PATH.test(path) || DOCS_MARKUP.test(head)) return 'documentation';
  if (path === '/' || /^\/index\.(html?|php)$/.test(path) || LISTING_PATH.test(path)) return 'listing';
  if (SERVICE_PATH.test(path)) return 'service';
  return 'article';
}
