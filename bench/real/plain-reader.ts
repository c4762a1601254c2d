// The yardstick: what a plain structured-data reader (extruct and a direct mapping) answers from a page's
// first Recipe or article entity, with no look at the visible page. Nothing here is used by the service.
import type { StructuredItem } from '../../shared/structured-data.js';

const first = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function name(v: unknown): string | undefined {
  const one = first(v);
  if (typeof one === 'string') return one;
  if (isRecord(one)) return name(one.name ?? one.url);
  return undefined;
}

function steps(v: unknown): string[] {
  if (typeof v === 'string') return v.split(/\n+/).filter((s) => s.trim());
  if (Array.isArray(v)) return v.flatMap(steps);
  if (!isRecord(v)) return [];
  if (v.itemListElement)
    return [...(typeof v.name === 'string' ? [v.name] : []), ...steps(v.itemListElement)];
  return typeof v.text === 'string' ? [v.text] : typeof v.name === 'string' ? [v.name] : [];
}

export function plainRecipe(items: StructuredItem[]): Record<string, unknown> {
  const recipe = items.find((i) => i.source !== 'meta' && i.types.includes('Recipe'))?.props;
  if (!recipe) return {};
  const image = first(recipe.image);
  return {
    title: name(recipe.name),
    author: name(recipe.author),
    ingredients: Array.isArray(recipe.recipeIngredient) ? recipe.recipeIngredient : undefined,
    instructions: recipe.recipeInstructions ? steps(recipe.recipeInstructions) : undefined,
    description: name(recipe.description),
    image: isRecord(image) ? image.url : image,
    total_time: first(recipe.totalTime),
    yields: first(recipe.recipeYield) === undefined ? undefined : String(first(recipe.recipeYield)),
  };
}

/** schema.org's article types: Article and its kinds (NewsArticle, BlogPosting, ReportageNewsArticle, …). */
const ARTICLE = /(?:Article|BlogPosting|Report|SocialMediaPosting)$/;

/** Every author's name, joined by commas. */
function names(v: unknown): string | undefined {
  const all = (Array.isArray(v) ? v : [v]).map(name).filter((n): n is string => typeof n === 'string');
  return all.length > 0 ? all.join(', ') : undefined;
}

/**
 * A news page's first article entity (JSON-LD, microdata or RDFa), each field it does not state read from the
 * page's OpenGraph/meta tags (og:title, article:author or author, article:published_time).
 */
export function plainArticle(items: StructuredItem[]): Record<string, unknown> {
  const article =
    items.find((i) => i.source !== 'meta' && i.source !== 'page' && i.types.some((t) => ARTICLE.test(t)))
      ?.props ?? {};
  const meta = items.find((i) => i.source === 'meta')?.props ?? {};
  return {
    title: name(article.headline ?? article.name) ?? name(meta.name),
    author: names(article.author) ?? names(meta.author),
    date: name(article.datePublished) ?? name(meta.datePublished),
  };
}
