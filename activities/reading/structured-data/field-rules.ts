// Which structured property answers a requested field, and what kind of value it is: by the field's name
// (lower case, without spaces, _ or -) and its schema.org synonyms. Identifiers are read only from the
// property of that name: a sku is never an mpn or a productID, and a gtin13 is not a gtin8.
import type { Field } from '../../../shared/schema-input.js';
import type { TimeLabel } from './durations.js';
import { availabilityStatement, currencyStatement, priceStatement, type Statement } from './offers.js';

export type FieldKind =
  | 'text'
  | 'image'
  | 'names'
  | 'identifier'
  | 'price'
  | 'currency'
  | 'availability'
  | 'date'
  | 'duration'
  | 'ingredients'
  | 'instructions'
  | 'yield';

export interface FieldRule {
  kind: FieldKind;
  /** Properties tried in order; an entity's first one with a value is what it states. */
  paths: string[];
  /** What the entity's offers state, read before the paths. */
  read?: (entity: Record<string, unknown>) => Statement | undefined;
  /** Identifiers: how many digits a value must have (a gtin read for an ean field). */
  digits?: number[];
  /** Durations: the label the page must show before the time. */
  time?: TimeLabel;
  /**
   * Durations: the entity's properties a time is the sum of, with their labels: a total the page shows only
   * as its parts ("Prep 20 min", "Cook 20 min") is shown where the entity's parts add up to it.
   */
  parts?: [string, TimeLabel][];
  /** Text made of words (a title, a description): a value without a letter is no answer ("2"). */
  words?: boolean;
  /** Running text (a description): an excerpt cut short ("… the […]") is no answer. */
  whole?: boolean;
  /** Dates: a date the page shows as an update's ("Updated: …") confirms it (a modified date). */
  updates?: boolean;
  /** What the value must be besides shown on the page (plausible.ts). */
  check?: 'title' | 'person' | 'maker';
}

const rule = (kind: FieldKind, paths: string[], extra: Partial<FieldRule> = {}): FieldRule => ({
  kind,
  paths,
  ...extra,
});
const text = (...paths: string[]) => rule('text', paths);
/** Words that name something, with what else they must be (plausible.ts). */
const named = (check: FieldRule['check'], ...paths: string[]) => rule('text', paths, { words: true, check });
const passage = (...paths: string[]) => rule('text', paths, { words: true, whole: true });
const date = (...paths: string[]) => rule('date', paths);
const id = (paths: string[], digits?: number[]) => rule('identifier', paths, digits ? { digits } : {});
const withOffers = (...names: string[]) => names.flatMap((n) => [n, `offers.${n}`]);

const TITLE = named('title', 'name', 'headline', 'title');
const PRICE = rule('price', ['price'], { read: priceStatement });
const CURRENCY = rule('currency', ['priceCurrency'], { read: currencyStatement });
const AVAILABILITY = rule('availability', ['availability'], { read: availabilityStatement });
const IMAGE = rule('image', ['image.url', 'image.contentUrl', 'image', 'thumbnailUrl']);
const AUTHOR = rule('names', ['author', 'creator'], { check: 'person' });
const PUBLISHED = date('datePublished', 'dateCreated', 'uploadDate');
const MODIFIED = rule('date', ['dateModified'], { updates: true });
const INGREDIENTS = rule('ingredients', ['recipeIngredient', 'ingredients']);
const INSTRUCTIONS = rule('instructions', ['recipeInstructions']);
const YIELD = rule('yield', ['recipeYield', 'yield']);
const TOTAL = rule('duration', ['totalTime'], {
  time: 'total',
  parts: [
    ['prepTime', 'prep'],
    ['cookTime', 'cook'],
  ],
});
const PREP = rule('duration', ['prepTime'], { time: 'prep' });
const COOK = rule('duration', ['cookTime'], { time: 'cook' });
const GTIN = ['gtin', 'gtin13', 'gtin12', 'gtin14', 'gtin8'];

const RULES: Record<string, FieldRule> = {
  name: TITLE,
  title: TITLE,
  productname: named('title', 'name'),
  headline: named('title', 'headline', 'name'),
  price: PRICE,
  currency: CURRENCY,
  pricecurrency: CURRENCY,
  availability: AVAILABILITY,
  stock: AVAILABILITY,
  stockstatus: AVAILABILITY,
  instock: AVAILABILITY,
  available: AVAILABILITY,
  isavailable: AVAILABILITY,
  sku: id(withOffers('sku')),
  gtin: id(withOffers(...GTIN)),
  gtin13: id(withOffers('gtin13', 'gtin'), [13]),
  ean: id(withOffers('gtin13', 'gtin8', 'gtin', 'ean'), [13, 8]),
  ean13: id(withOffers('gtin13', 'gtin', 'ean'), [13]),
  gtin8: id(withOffers('gtin8', 'gtin'), [8]),
  ean8: id(withOffers('gtin8', 'gtin'), [8]),
  gtin12: id(withOffers('gtin12', 'gtin', 'upc'), [12]),
  upc: id(withOffers('gtin12', 'gtin', 'upc'), [12]),
  gtin14: id(withOffers('gtin14', 'gtin'), [14]),
  mpn: id(withOffers('mpn')),
  isbn: id(['isbn', 'workExample.isbn']),
  productid: id(['productID']),
  brand: named('maker', 'brand.name', 'brand'),
  manufacturer: named('maker', 'manufacturer.name', 'manufacturer'),
  image: IMAGE,
  imageurl: IMAGE,
  photo: IMAGE,
  picture: IMAGE,
  thumbnail: rule('image', ['thumbnailUrl', 'image.url', 'image']),
  description: passage('description'),
  summary: passage('description', 'abstract'),
  date: date('datePublished', 'dateCreated', 'startDate'),
  datepublished: PUBLISHED,
  publishedat: PUBLISHED,
  published: PUBLISHED,
  publishdate: PUBLISHED,
  publicationdate: PUBLISHED,
  publisheddate: PUBLISHED,
  publishedon: PUBLISHED,
  pubdate: PUBLISHED,
  dateposted: PUBLISHED,
  posteddate: PUBLISHED,
  postedon: PUBLISHED,
  postdate: PUBLISHED,
  datemodified: MODIFIED,
  modified: MODIFIED,
  updatedat: MODIFIED,
  lastupdated: MODIFIED,
  author: AUTHOR,
  authors: AUTHOR,
  byline: AUTHOR,
  creator: AUTHOR,
  rating: text('aggregateRating.ratingValue'),
  averagerating: text('aggregateRating.ratingValue'),
  reviewcount: text('aggregateRating.reviewCount', 'aggregateRating.ratingCount'),
  ratingcount: text('aggregateRating.ratingCount', 'aggregateRating.reviewCount'),
  url: text('url'),
  company: text('hiringOrganization.name', 'organizer.name'),
  employer: text('hiringOrganization.name'),
  location: text('jobLocation.address.addressLocality', 'location.name', 'location.address.addressLocality'),
  salary: text('baseSalary.value.value', 'baseSalary.value.minValue'),
  startdate: date('startDate'),
  enddate: date('endDate'),
  category: text('category', 'articleSection', 'recipeCategory'),
  cuisine: text('recipeCuisine'),
  breadcrumbs: text('itemListElement.name'),
  ingredients: INGREDIENTS,
  recipeingredient: INGREDIENTS,
  recipeingredients: INGREDIENTS,
  instructions: INSTRUCTIONS,
  recipeinstructions: INSTRUCTIONS,
  directions: INSTRUCTIONS,
  steps: INSTRUCTIONS,
  method: INSTRUCTIONS,
  yield: YIELD,
  yields: YIELD,
  recipeyield: YIELD,
  servings: YIELD,
  serves: YIELD,
  totaltime: TOTAL,
  readyin: TOTAL,
  preptime: PREP,
  preparationtime: PREP,
  cooktime: COOK,
  cookingtime: COOK,
  baketime: COOK,
  bakingtime: COOK,
  duration: rule('duration', ['duration', 'totalTime', 'timeRequired']),
};

/** A duration field with its unit in its name: "total_time_minutes", "cook_time_in_hours". */
const UNIT_SUFFIX = /(?:in)?(?:minutes|mins|min|hours|hrs|seconds|secs)$/;

/** The rule for a field; the field's own name (and its camelCase) are tried after the synonyms. */
export function ruleFor(field: Field): FieldRule {
  const key = field.name.toLowerCase().replace(/[\s_-]/g, '');
  const found = RULES[key] ?? durationWithUnit(key) ?? rule('text', []);
  const own = [field.name, field.name.replace(/[_-](\w)/g, (_, c: string) => c.toUpperCase())];
  return { ...found, paths: [...new Set([...found.paths, ...own])] };
}

function durationWithUnit(key: string): FieldRule | undefined {
  const found = UNIT_SUFFIX.test(key) ? RULES[key.replace(UNIT_SUFFIX, '')] : undefined;
  return found?.kind === 'duration' ? found : undefined;
}
