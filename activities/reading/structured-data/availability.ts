// schema.org ItemAvailability as a person reads it. A structured availability ("https://schema.org/InStock",
// "OutOfStock", "instock") is answered only when the page agrees. Its buy buttons speak first: where the page
// has any, their labels must be of the same kind ("Add to cart" for in stock; a disabled add-to-cart button is
// no evidence, it waits for a variant to be chosen) and none of the opposite kind ("Sold out"). Without buy
// buttons, the page must show a label of the same kind ("In stock", "Auf Lager", "Sold out", in common
// languages) and none of the opposite kind. Text elsewhere counts only then: shop themes put a "Sold out"
// badge on every product page and hide it with CSS, and related products carry badges of their own. A string field gets the human label ("In stock"), not the URL: it is what
// the page says and what a model would answer; a boolean field (in_stock) gets true or false.
import type { PageEvidence } from './page-evidence.js';
import { tokenText } from './text.js';

export type StockClass = 'in' | 'out' | 'preorder' | 'backorder' | 'discontinued';

interface Availability {
  label: string;
  stock: StockClass;
}

const AVAILABILITY: Record<string, Availability> = {
  instock: { label: 'In stock', stock: 'in' },
  limitedavailability: { label: 'Limited availability', stock: 'in' },
  onlineonly: { label: 'Online only', stock: 'in' },
  instoreonly: { label: 'In store only', stock: 'in' },
  madetoorder: { label: 'Made to order', stock: 'in' },
  outofstock: { label: 'Out of stock', stock: 'out' },
  soldout: { label: 'Sold out', stock: 'out' },
  discontinued: { label: 'Discontinued', stock: 'discontinued' },
  preorder: { label: 'Pre-order', stock: 'preorder' },
  presale: { label: 'Pre-sale', stock: 'preorder' },
  backorder: { label: 'Backorder', stock: 'backorder' },
};

/** A structured availability (URL, prefixed or bare enum name, any case or spacing), or undefined. */
export function availabilityOf(raw: unknown): Availability | undefined {
  if (typeof raw !== 'string') return undefined;
  const name = raw
    .trim()
    .replace(/^.*[/#:]/, '')
    .replace(/[\s_-]/g, '')
    .toLowerCase();
  return AVAILABILITY[name];
}

/** Whether a boolean "in stock"-style field is true, false, or not answerable from this availability. */
export function inStock(a: Availability): boolean | undefined {
  if (a.stock === 'in') return true;
  if (a.stock === 'out' || a.stock === 'discontinued') return false;
  return undefined;
}

/** What a page shows for each kind, as token phrases; a longer phrase wins where one holds another. */
const LABELS: Record<StockClass, string[]> = {
  in: [
    'in stock',
    'add to cart',
    'add to basket',
    'add to bag',
    'add to trolley',
    'add to order',
    'buy now',
    'buy it now',
    'available now',
    'auf lager',
    'an lager',
    'lieferbar',
    'sofort lieferbar',
    'vorrätig',
    'in den warenkorb',
    'in den einkaufswagen',
    'zum warenkorb hinzufügen',
    'in den korb',
    'jetzt kaufen',
    'en stock',
    'ajouter au panier',
    'acheter maintenant',
    'en existencia',
    'añadir al carrito',
    'agregar al carrito',
    'añadir a la cesta',
    'aggiungi al carrello',
    'disponibile subito',
    'op voorraad',
    'in winkelwagen',
    'in winkelmand',
    'toevoegen aan winkelwagen',
    'em estoque',
    'adicionar ao carrinho',
    'i lager',
    'på lager',
    'lägg i varukorgen',
    'læg i kurv',
    'legg i handlekurven',
    'do koszyka',
    'dodaj do koszyka',
    'do košíku',
    'skladem',
  ],
  out: [
    'out of stock',
    'sold out',
    'unavailable',
    'not available',
    'currently unavailable',
    'notify me when available',
    'notify me when back in stock',
    'email me when available',
    'email me when back in stock',
    'back in stock',
    'when in stock',
    'not in stock',
    'ausverkauft',
    'nicht verfügbar',
    'nicht lieferbar',
    'nicht auf lager',
    'nicht vorrätig',
    'vergriffen',
    'wieder verfügbar',
    'wieder auf lager',
    'rupture de stock',
    'en rupture',
    'épuisé',
    'indisponible',
    'agotado',
    'sin stock',
    'no disponible',
    'esaurito',
    'non disponibile',
    'uitverkocht',
    'niet op voorraad',
    'niet leverbaar',
    'esgotado',
    'indisponível',
    'slutsåld',
    'slut i lager',
    'utsolgt',
    'ikke på lager',
    'udsolgt',
    'wyprzedane',
    'brak w magazynie',
    'niedostępny',
    'vyprodáno',
    'není skladem',
  ],
  preorder: [
    'pre order',
    'preorder',
    'pre orders',
    'pre sale',
    'presale',
    'vorbestellen',
    'vorbestellung',
    'précommande',
    'précommander',
    'precommande',
    'preventa',
    'prenotazione',
    'prenota ora',
    'pre encomenda',
  ],
  backorder: ['backorder', 'back order', 'backordered', 'on backorder', 'nachbestellbar'],
  discontinued: [
    'discontinued',
    'no longer available',
    'nicht mehr erhältlich',
    'nicht mehr lieferbar',
    'plus disponible',
    'descatalogado',
    'fuori produzione',
    'uit assortiment',
  ],
};

/** A label the page shows that contradicts each kind. */
const OPPOSITE: Record<StockClass, StockClass[]> = {
  in: ['out', 'discontinued'],
  out: ['in'],
  preorder: ['out', 'discontinued'],
  backorder: ['out', 'discontinued'],
  discontinued: ['in'],
};

const PHRASES = Object.entries(LABELS)
  .flatMap(([stock, phrases]) => phrases.map((p) => [tokenText(p), stock as StockClass] as const))
  .sort((a, b) => b[0].length - a[0].length);
const CLASS_OF = new Map(PHRASES);
const ANY_LABEL = new RegExp(
  `(?<= )(?:${PHRASES.map(([p]) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?= )`,
  'g',
);

const seen = new WeakMap<PageEvidence, Set<StockClass>>();

/** The kinds of availability label a page shows, in its text or its buttons (read once, on first use). */
function labelsOn(page: PageEvidence): Set<StockClass> {
  let found = seen.get(page);
  if (!found) {
    found = new Set();
    for (const text of [page.tokens, ...page.labels]) for (const kind of kindsIn(text)) found.add(kind);
    seen.set(page, found);
  }
  return found;
}

const kindsIn = (text: string): StockClass[] =>
  [...text.matchAll(ANY_LABEL)].map((m) => CLASS_OF.get(m[0]) as StockClass);

/** The kinds the page's buy buttons show; a disabled button's in-stock label says nothing. */
function buttonKinds(page: PageEvidence): Set<StockClass> {
  const found = new Set<StockClass>();
  for (const button of page.buy)
    for (const kind of kindsIn(button.text)) if (!(button.disabled && kind === 'in')) found.add(kind);
  return found;
}

/** Whether the page confirms an availability: its buy buttons' kinds, or else its labels' (see above). */
export function availabilityShown(page: PageEvidence, a: Availability): boolean {
  const buttons = buttonKinds(page);
  const found = buttons.size > 0 ? buttons : labelsOn(page);
  return found.has(a.stock) && !OPPOSITE[a.stock].some((c) => found.has(c));
}
