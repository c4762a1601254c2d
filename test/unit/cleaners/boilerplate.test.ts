// Page chrome goes, content stays: the boilerplate step on its own and through the cleaners that use it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { load } from 'cheerio';
import { dropBoilerplate } from '../../../activities/reading/cleaners/boilerplate.js';
import { runChain } from '../../../activities/reading/cleaners/index.js';

const body = (html: string, keep = '') => {
  const $ = load(html);
  dropBoilerplate($, keep);
  return $('body').text().replace(/\s+/g, ' ').trim();
};

const LONG = 'Enough words of real content to outweigh the page chrome around it. '.repeat(6);
const menu = (n: number) =>
  `<ul>${Array.from({ length: n }, (_, i) => `<li><a href="/c/${i}">Section ${i}</a></li>`).join('')}</ul>`;

describe('dropBoilerplate', () => {
  test('drops navigation, site header and footer, sidebars, forms and dialogs by tag and role', () => {
    const html =
      `<header>Site name</header><nav><a href="/">Home</a></nav><div role="navigation">Menu</div>` +
      `<div role="banner">Banner</div><aside>Sidebar</aside><form><label>Email</label><input></form>` +
      `<dialog>Dialog</dialog><div role="contentinfo">Contact</div><p>${LONG}</p><footer>Footer text</footer>`;
    assert.equal(body(html), LONG.trim());
  });

  test('the header of the article or main content stays; its footer and asides go', () => {
    const html = `<article><header><h2>Headline</h2><p>By Ada</p></header><p>${LONG}</p><aside>Read also: kettles</aside><footer>Filed under kettles</footer></article>`;
    const text = body(html);
    for (const kept of ['Headline', 'By Ada', 'Enough words']) assert.ok(text.includes(kept), kept);
    for (const gone of ['Read also', 'Filed under kettles']) assert.ok(!text.includes(gone), gone);
    // One that holds the content (a template that wraps the article in an aside) stays.
    assert.ok(body(`<main><aside><article><p>${LONG}</p></article></aside></main>`).includes('Enough words'));
  });

  test('short figure captions go; a long figcaption (a figure that is a text box) stays', () => {
    const long =
      'A figure that holds a whole section of the text in its caption, sentence after sentence. '.repeat(6);
    const html =
      `<article><p>${LONG}</p><figure><img src="a.jpg"><figcaption>The kettle in 1952. Photo: Archive</figcaption></figure>` +
      `<figure><figcaption>${long}</figcaption></figure></article>`;
    const text = body(html);
    assert.ok(!text.includes('The kettle in 1952'));
    for (const kept of ['Enough words', 'sentence after sentence']) assert.ok(text.includes(kept), kept);
  });

  test('a comment form, its spam notice, a copyright line and page numbers go by their names', () => {
    const html =
      `<article><p>${LONG}</p></article><div id="respond" class="comment-respond"><h3>Leave a reply</h3><textarea></textarea></div>` +
      `<p class="akismet_comment_form_privacy_notice">This site uses a spam filter.</p>` +
      `<p class="nocomments">Comments are closed.</p><div class="site-copyright">© 2024 Example</div>` +
      `<div class="pagination"><span>Page 1 of 3</span></div>`;
    const text = body(html);
    for (const gone of ['Leave a reply', 'spam filter', 'Comments are closed', '© 2024', 'Page 1 of 3'])
      assert.ok(!text.includes(gone), gone);
    assert.ok(text.includes('Enough words'));
  });

  test('a short heading labelling chrome that ends its parent goes with it; one that heads more text stays', () => {
    const related = (label: string) =>
      `<h2>${label}</h2><div class="related-posts"><p><a href="/a">A story</a> about kettles.</p></div>`;
    const trailing = body(`<article><p>${LONG}</p>${related('More on this')}</article>`);
    assert.ok(!trailing.includes('More on this'));
    assert.ok(!trailing.includes('A story'));
    const inside = body(
      `<article><p>${LONG}</p>${related('Boiling points')}<p>The section goes on.</p></article>`,
    );
    assert.ok(inside.includes('Boiling points'));
    assert.ok(inside.includes('The section goes on'));
  });

  test('cookie banners and share bars go by their class or id; long heading ids and inline links do not', () => {
    const html =
      `<div id="cookie-banner">We use cookies</div><div class="cc-consent-box">Accept all</div>` +
      `<div class="share-bar">Share this</div><div class="section" id="sharing-with-a-single-developer"><p>${LONG}</p></div>` +
      `<p>A <a class="popup" href="/note">footnote link</a> in running text.</p>`;
    const text = body(html);
    for (const gone of ['We use cookies', 'Accept all', 'Share this']) assert.ok(!text.includes(gone), gone);
    for (const kept of ['Enough words', 'footnote link']) assert.ok(text.includes(kept), kept);
  });

  test('hidden elements go: the hidden attribute, display:none or visibility:hidden, aria-hidden', () => {
    const html =
      `<div hidden>Hidden by attribute</div><div style="color: red; display: none">Hidden by style</div>` +
      `<p style="visibility:hidden !important">Invisible</p><div aria-hidden="true">Screen readers skip me</div>` +
      `<div style="display:block"><p>${LONG}</p></div><div aria-hidden="false">Shown</div>`;
    const text = body(html);
    for (const gone of ['Hidden by attribute', 'Hidden by style', 'Invisible', 'Screen readers'])
      assert.ok(!text.includes(gone), gone);
    for (const kept of ['Enough words', 'Shown']) assert.ok(text.includes(kept), kept);
    // What holds the page stays even when hidden (a page revealed by its script).
    assert.ok(body(`<div hidden><h1>Title</h1><p>${LONG}</p></div>`).includes('Enough words'));
  });

  test("a framework's hiding class hides: hidden, d-none, is-hidden; not when a width shows it again", () => {
    const html =
      `<div class="hidden support-box"><p>Help keep news free.</p></div><div class="d-none">Not here</div>` +
      `<div class="notice is-hidden">Nor here</div><div class="hidden md:block">Wide screens</div>` +
      `<div class="d-none d-lg-flex">Large screens</div><div class="hidden-gems">Five quiet beaches.</div>` +
      `<p>${LONG}</p>`;
    const text = body(html);
    for (const gone of ['Help keep news free', 'Not here', 'Nor here']) assert.ok(!text.includes(gone), gone);
    for (const kept of ['Wide screens', 'Large screens', 'Five quiet beaches', 'Enough words'])
      assert.ok(text.includes(kept), kept);
  });

  test("what the page's print style leaves out, camelCase names of chrome and ad-blocker notices go", () => {
    const html =
      `<div class="col-md-4 d-print-none"><p>Most read: a story in full sentences.</p></div>` +
      `<div class="navbox noprint">Kettles · Teapots · Cups</div><div class="PagePromo"><p>Another story, told in a sentence.</p></div>` +
      `<div class="LivePromotion--meta">Live coverage all day and night.</div>` +
      `<div class="adblock-notice"><p>We noticed you are using an ad blocker.</p></div>` +
      // A random camelCase id is no name: "AdDsWC" is not an ad.
      `<p id="AdDsWC">${LONG}</p>`;
    const text = body(html);
    for (const gone of ['Most read', 'Kettles ·', 'Another story', 'Live coverage', 'ad blocker'])
      assert.ok(!text.includes(gone), gone);
    assert.ok(text.includes('Enough words'));
  });

  test("a box named a form goes like a <form>; one holding a shop's description stays", () => {
    const description = 'A kettle of brushed steel that boils a litre in three minutes, quietly. '.repeat(8);
    const html =
      `<main><p>${LONG}</p></main><div id="form"><h2>Comment</h2><h3>You must log in to take part in a discussion.</h3></div>` +
      `<div class="product-form"><p>${description}</p><button>Add to cart</button></div>`;
    const text = body(html);
    assert.ok(!text.includes('You must log in'));
    for (const kept of ['Enough words', 'brushed steel']) assert.ok(text.includes(kept), kept);
  });

  test('boxes named as ads, promotions, related stories, newsletters, sidebars, footers or bios go', () => {
    const html =
      `<div class="ad-slot">Buy now</div><div id="promo_box">Half price today</div>` +
      `<section class="related-stories"><h3>Related</h3><p>Another story in full sentences.</p></section>` +
      `<div class="newsletter-signup"><p>Get our letter every Sunday.</p></div>` +
      `<div class="author-bio"><p>Ada writes about kettles.</p></div><div class="site-sidebar">Popular</div>` +
      `<div class="article-footer">Filed under kettles</div><div class="shadow"><p>${LONG}</p></div>`;
    const text = body(html);
    for (const gone of ['Buy now', 'Half price', 'Another story', 'every Sunday', 'Ada writes', 'Popular'])
      assert.ok(!text.includes(gone), gone);
    assert.ok(!text.includes('Filed under'));
    // Words inside longer names, or in other words ("download", "loaded", "biology"), name nothing.
    const kept = body(
      `<div class="download-area"><p>Get the file.</p></div><div class="biology"><p>${LONG}</p></div>`,
    );
    assert.ok(kept.includes('Get the file') && kept.includes('Enough words'), kept);
  });

  test('recirculation and most-popular modules and hover cards go by their names; an embedded post stays', () => {
    const html =
      `<article><p>${LONG}</p><section class="recirc-module"><h3>Another story in full sentences here</h3></section>` +
      `<div class="most-popular"><p>The story everyone read this week, again.</p></div>` +
      `<div class="author-tooltip"><p>Ada has written about kettles since 2009.</p></div>` +
      `<blockquote class="twitter-tweet"><p>Posted from the match, what a goal.</p></blockquote></article>`;
    const text = body(html);
    for (const gone of ['Another story', 'everyone read', 'Ada has written'])
      assert.ok(!text.includes(gone), gone);
    // Some pages quote a post as their own text: an embedded post is not chrome by its name.
    for (const kept of ['Enough words', 'what a goal']) assert.ok(text.includes(kept), kept);
  });

  test('a run of cards whose face is a link goes beside an article’s paragraphs; a listing’s cards stay', () => {
    const card = (i: number) =>
      `<div class="c7"><a href="/story/${i}"><div><h3>Another headline of the day, number ${i}</h3><p>Its teaser line.</p></div></a></div>`;
    const cards = `<div class="x9">${[1, 2, 3, 4].map(card).join('')}</div>`;
    const article = body(`<div><h1>Kettles</h1><p>${LONG}</p><p>${LONG}</p>${cards}</div>`);
    assert.ok(article.includes('Enough words') && !article.includes('number 2'), article);
    // Inside the article too: the page's one main content does not protect them.
    const inside = body(`<article><h1>Kettles</h1><p>${LONG}</p><p>${LONG}</p>${cards}</article>`);
    assert.ok(inside.includes('Enough words') && !inside.includes('number 2'), inside);
    // A listing: the cards are the page's text.
    const listing = body(`<main><h1>Kettle news</h1><p>All our stories about kettles.</p>${cards}</main>`);
    assert.ok(listing.includes('number 2') && listing.includes('number 4'), listing);
    // Links around a line of text only are no cards (a list of headlines stays in the article).
    const plain = `<ul class="x9">${[1, 2, 3, 4].map((i) => `<li><a href="/s/${i}">Another headline, number ${i}</a> and a line</li>`).join('')}</ul>`;
    assert.ok(
      body(`<article><h1>Kettles</h1><p>${LONG}</p><p>${LONG}</p>${plain}</article>`).includes('number 2'),
    );
  });

  test('a name saying what a box has or lacks ("has-sidebar", "with-bio", "no-ads") names no chrome', () => {
    const text = body(
      `<div class="story has-sidebar"><p>The story starts here.</p></div><div class="lede with-bio"><p>By Ada, who writes.</p></div>` +
        `<div class="no-ads"><p>The story goes on.</p></div><div class="x"><p>${LONG}</p></div>`,
    );
    for (const kept of ['The story starts here', 'By Ada', 'The story goes on'])
      assert.ok(text.includes(kept), `${kept}: ${text}`);
    // The words themselves, and a state word later in the name, still name chrome.
    assert.ok(!body(`<div class="sidebar-has">Popular</div><p>${LONG}</p>`).includes('Popular'));
    assert.ok(!body(`<div class="ads-no">Buy now</div><p>${LONG}</p>`).includes('Buy now'));
  });

  test('a block of short links goes however it is marked up; a product grid with prices stays', () => {
    const cards = Array.from(
      { length: 6 },
      (_, i) =>
        `<div class="card"><a href="/p/${i}">Kettle ${i}</a> <span>£${10 + i}.00</span> <span>${i} reviews</span></div>`,
    ).join('');
    const text = body(`<div class="c1">${menu(12)}</div><div class="grid">${cards}</div><div>${LONG}</div>`);
    assert.ok(!text.includes('Section 3'));
    // Link text in markup of its own counts the same; long link texts (a list of headlines) are no menu.
    const spans = Array.from({ length: 5 }, (_, i) => `<a href="/s/${i}"><span>Shop ${i}</span></a>`).join(
      ' ',
    );
    assert.ok(!body(`<div class="x">${spans}</div><p>${LONG}</p>`).includes('Shop 2'));
    const headlines = Array.from(
      { length: 5 },
      (_, i) => `<li><a href="/n/${i}"><span>Council approves the new budget for year ${i}</span></a></li>`,
    ).join('');
    assert.ok(body(`<ul>${headlines}</ul><p>${LONG}</p>`).includes('budget for year 3'));
    for (let i = 0; i < 6; i++)
      assert.ok(text.includes(`Kettle ${i} £${10 + i}.00 ${i} reviews`), `card ${i}`);
  });

  test('tables, and lists of links inside the main content, are never taken for menus', () => {
    const rows = Array.from(
      { length: 5 },
      (_, i) => `<tr><td><a href="/b/${i}">Branch ${i}</a></td></tr>`,
    ).join('');
    const text = body(`<main><h1>Stores</h1>${menu(6)}</main><table>${rows}</table><p>${LONG}</p>`);
    assert.ok(text.includes('Section 5'));
    assert.ok(text.includes('Branch 4'));
  });

  test('lists of headlines beside the page’s one main content go; on a page of several articles or none they stay', () => {
    const headlines = `<ul>${Array.from(
      { length: 5 },
      (_, i) => `<li><a href="/n/${i}">Council approves the new budget for year ${i}</a></li>`,
    ).join('')}</ul>`;
    const story = `<article><h1>Kettles</h1><p>${LONG}</p></article>`;
    const beside = body(`${story}<div class="more"><h4>Most read</h4>${headlines}</div>`);
    assert.ok(beside.includes('Enough words') && !beside.includes('budget for year 3'), beside);
    // Several articles (a news index), or a main content holding little of the page's text: no one main content.
    const index = `<article><h2>One</h2><p>${LONG}</p></article><article><h2>Two</h2><p>${LONG}</p></article>`;
    assert.ok(body(`${index}${headlines}`).includes('budget for year 3'));
    assert.ok(
      body(`<main><p>Short intro.</p></main>${headlines}<div>${LONG}</div>`).includes('budget for year 3'),
    );
    // Inside the main content a list of headlines is the content's.
    assert.ok(body(`<article><p>${LONG}</p>${headlines}</article>`).includes('budget for year 3'));
  });

  test('beside the one main content, cards of other stories (a headline link and its teaser) go', () => {
    const cards = Array.from(
      { length: 4 },
      (_, i) =>
        `<div class="card"><a href="/s/${i}">Story ${i} headline</a><p>A teaser of story ${i}.</p></div>`,
    ).join('');
    const story = `<article><h1>Kettles</h1><p>${LONG}</p></article>`;
    const text = body(`${story}<section>${cards}</section>`);
    assert.ok(text.includes('Enough words') && !text.includes('Story 2 headline'), text);
    // With no one main content (a news index) the cards are the page.
    assert.ok(body(`<div>${cards}</div><p>${LONG}</p>`).includes('Story 2 headline'));
    // Small <article> cards are cards: they go beside the main content; a large article never does.
    const small = cards.replaceAll('<div class="card">', '<article>').replaceAll('</div>', '</article>');
    const beside = body(
      `<main><h1>Kettles</h1><p>${LONG}</p></main><aside>${small}</aside><div>${small}</div>`,
    );
    assert.ok(!beside.includes('Story 2 headline'), beside);
    assert.ok(body(`<div class="related"><article><p>${LONG}</p></article></div>`).includes('Enough words'));
  });

  test('never drops what holds the page: the main content, the h1, a page-wide form or a kept element', () => {
    assert.ok(body(`<form id="aspnetForm"><p>${LONG}</p></form>`).includes('Enough words'));
    assert.ok(body(`<header><h1>The title</h1></header><p>${LONG}</p>`).includes('The title'));
    assert.ok(body(`<nav><main><p>Odd but real</p></main></nav><p>${LONG}</p>`).includes('Odd but real'));
    assert.ok(
      body(`<nav class="pager"><a rel="next" href="/2">Next</a></nav><p>${LONG}</p>`, 'a[rel=next]').includes(
        'Next',
      ),
    );
  });

  test("on a page whose h1 says its title, another h1 is a box's label and protects nothing", () => {
    const cards = Array.from(
      { length: 4 },
      (_, i) =>
        `<div class="card"><a href="/s/${i}">Other story ${i} that the site wants read next</a></div>`,
    ).join('');
    const page = `<main><article><h1>Storm floods the valley</h1><p>${LONG}</p></article></main><section class="trending"><h1>Trending now</h1>${cards}</section>`;
    const dropped = (title: string) => {
      const $ = load(page);
      dropBoilerplate($, '', title);
      return $('body').text();
    };
    const text = dropped('Storm floods the valley – The Daily');
    assert.ok(text.includes('Storm floods the valley') && text.includes('Enough words'));
    assert.ok(!text.includes('Trending now') && !text.includes('Other story 2'), text);
    // Without an h1 that says the title, each h1 still marks content (a wiki's panels each under an h1).
    assert.ok(dropped('The Daily').includes('Other story 2'));
  });

  test("a shop's product form holding the description stays; a sign-up form with a short note goes", () => {
    const description = Array.from(
      { length: 8 },
      (_, i) =>
        `<p>Part ${i} of the description: a double layer of soft fleece, embroidered with a name.</p>`,
    ).join('');
    const product =
      `<form class="productform"><p>Price: 36.00 EUR</p><select><option>Red</option></select>` +
      `<button>Add to cart</button>${description}</form>`;
    // The rest of the page outweighs the form: it is no page-wide form.
    const text = body(`<h1>Cat blanket</h1>${product}${`<p>${LONG}</p>`.repeat(3)}`);
    assert.ok(text.includes('Part 7 of the description'), text);
    assert.ok(text.includes('Price: 36.00 EUR'), text);
    const signup = `<form><p>Get our letters. We never share your address, read our privacy note.</p><input></form>`;
    assert.ok(!body(`<p>${LONG}</p>${signup}`).includes('Get our letters'));
  });

  test('deep nesting does not overflow the stack: the passes are loops, not recursion', () => {
    const $ = load(
      `${'<div>'.repeat(5_000)}<p>deep text</p>${'</div>'.repeat(5_000)}<p>${LONG}</p><nav>${menu(5)}</nav>`,
    );
    dropBoilerplate($, '');
    assert.equal($('p').first().text(), 'deep text');
    assert.equal($('nav').length, 0);
  });
});

describe('cleaners with drop_boilerplate', () => {
  const page = `<html><body><nav>${menu(8)}</nav><div class="cookie-notice">We use cookies</div><main><h1>Kettles</h1><p>${LONG}</p></main><footer>© Shop</footer></body></html>`;

  test('markdown, text and html drop page chrome by default', () => {
    for (const name of ['markdown', 'text', 'html']) {
      const out = runChain(page, [{ name }]);
      assert.ok(out.includes('Kettles') && out.includes('Enough words'), name);
      for (const gone of ['Section 1', 'We use cookies', '© Shop'])
        assert.ok(!out.includes(gone), `${name}: ${gone}`);
    }
  });

  test('captions and credits go from the page as from Readability’s pick; screen-reader text stays', () => {
    const captioned = `<main><h1>Kettles</h1><p>${LONG}</p><div class="image"><img src="k.jpg"><div class="image-caption">The kettle in 1952</div><span class="credit">Photo: Archive</span></div><p><a href="/k">Kettles<span class="sr-only">(opens a new tab)</span></a></p></main>`;
    for (const name of ['markdown', 'text']) {
      const out = runChain(captioned, [{ name }]);
      assert.ok(out.includes('Enough words'), name);
      for (const gone of ['The kettle in 1952', 'Photo: Archive'])
        assert.ok(!out.includes(gone), `${name}: ${gone}`);
      // A shop may hide its shown price from screen readers and say it to them alone.
      assert.ok(out.includes('opens a new tab'), name);
    }
    // A kept caption stays, and without drop_boilerplate the whole page does.
    assert.ok(
      runChain(captioned, [{ name: 'text', options: { keep_selectors: ['.credit'] } }]).includes('Archive'),
    );
    const whole = runChain(captioned, [{ name: 'text', options: { drop_boilerplate: false } }]);
    assert.ok(whole.includes('The kettle in 1952'));
  });

  test('drop_boilerplate: false keeps the whole page', () => {
    const out = runChain(page, [{ name: 'markdown', options: { drop_boilerplate: false } }]);
    for (const kept of ['Section 1', 'We use cookies', '© Shop']) assert.ok(out.includes(kept), kept);
  });
});
