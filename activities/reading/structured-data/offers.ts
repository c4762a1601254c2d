// A product's offers: the price, currency and availability they state, or that they are ambiguous. Several
// offers that disagree (variants at different prices, one size sold out) leave the field to the model, as
// does a price of 0 or below; list prices (ListPrice, StrikethroughPrice, MSRP price specifications) are
// never the price, and an offer price equal to one of them is not trusted; an AggregateOffer's lowPrice is
// the price only when its highPrice is absent or the same.
import { availabilityOf } from './availability.js';
import { numberOf } from './numbers.js';

/** What an entity states for a field: the raw values read at one path, or that they are ambiguous. */
export type Statement = { values: unknown[]; path: string } | { ambiguous: true; path: string };

type Props = Record<string, unknown>;
const isRecord = (v: unknown): v is Props => typeof v === 'object' && v !== null && !Array.isArray(v);
const listOf = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const typesOf = (p: Props) => listOf(p['@type']).filter((t): t is string => typeof t === 'string');

const LIST_PRICE =
  /(?:ListPrice|StrikethroughPrice|MSRP|SRP|RecommendedRetailPrice|MinimumAdvertisedPrice)$/i;

/** The offers an entity makes; an Offer entity is its own. An AggregateOffer listing offers gives those. */
export function offersOf(entity: Props): Props[] {
  if (typesOf(entity).some((t) => /Offer$/.test(t))) return [entity];
  return listOf(entity.offers)
    .filter(isRecord)
    .flatMap((o) => (o.price === undefined && o.lowPrice === undefined && o.offers ? offersOf(o) : [o]));
}

interface OfferPrice {
  raw: unknown;
  value: number;
  path: string;
}

/** One offer's price, undefined when it states none, null when what it states is not trustworthy. */
function offerPrice(offer: Props): OfferPrice | null | undefined {
  const sale: OfferPrice[] = [];
  const list = new Set<number>();
  for (const raw of listOf(offer.price))
    sale.push({ raw, value: numberOf(raw) ?? Number.NaN, path: 'price' });
  for (const spec of listOf(offer.priceSpecification).filter(isRecord)) {
    if (spec.referenceQuantity !== undefined) continue; // a unit price (per kg), not the price
    const value = numberOf(spec.price);
    if (value === undefined) continue;
    if (typeof spec.priceType === 'string' && LIST_PRICE.test(spec.priceType)) list.add(value);
    else sale.push({ raw: spec.price, value, path: 'priceSpecification.price' });
  }
  if (sale.length === 0 && offer.lowPrice !== undefined) {
    const [low, high] = [numberOf(offer.lowPrice), numberOf(offer.highPrice)];
    if (offer.highPrice !== undefined && high !== low) return null;
    sale.push({ raw: offer.lowPrice, value: low ?? Number.NaN, path: 'lowPrice' });
  }
  if (sale.length === 0) return undefined;
  const values = new Set(sale.map((s) => s.value));
  const [first] = sale as [OfferPrice];
  if (values.size > 1 || !(first.value > 0)) return null;
  if (list.has(first.value) && first.path === 'price' && !sale.some((s) => s.path !== 'price')) return null;
  return first;
}

/** The price every offer agrees on. */
export function priceStatement(entity: Props): Statement | undefined {
  const offers = offersOf(entity);
  const prices = offers.map(offerPrice).filter((p) => p !== undefined);
  const prefix = offers[0] === entity ? '' : 'offers.';
  if (prices.length === 0) return undefined;
  if (prices.some((p) => p === null)) return { ambiguous: true, path: `${prefix}price` };
  const found = prices as OfferPrice[];
  const first = found[0] as OfferPrice;
  const path = `${prefix}${first.path}`;
  return new Set(found.map((p) => p.value)).size > 1
    ? { ambiguous: true, path }
    : { values: [first.raw], path };
}

/** The currency every offer agrees on (its own or its price specification's). */
export function currencyStatement(entity: Props): Statement | undefined {
  return agreed(entity, 'priceCurrency', (o) => [
    ...listOf(o.priceCurrency),
    ...listOf(o.priceSpecification)
      .filter(isRecord)
      .flatMap((s) => listOf(s.priceCurrency)),
  ]);
}

/** The availability every offer agrees on. */
export function availabilityStatement(entity: Props): Statement | undefined {
  return agreed(entity, 'availability', (o) => listOf(o.availability));
}

function agreed(entity: Props, name: string, read: (offer: Props) => unknown[]): Statement | undefined {
  const offers = offersOf(entity);
  const path = offers[0] === entity ? name : `offers.${name}`;
  const values = offers.flatMap(read).filter((v) => typeof v === 'string' && v.trim());
  if (values.length === 0) return undefined;
  const keys = new Set(values.map((v) => availabilityOf(v)?.label ?? String(v).trim().toUpperCase()));
  return keys.size > 1 ? { ambiguous: true, path } : { values: [values[0]], path };
}
