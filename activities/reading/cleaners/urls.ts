// Relative link targets and image sources become absolute, so the model sees URLs it can return; URLs
// no reader can follow (javascript:, inline data: images) go, as they only cost tokens.
import type { CheerioAPI } from 'cheerio';

function resolve(value: string, base: string): string | null {
  try {
    return new URL(value.trim(), base).href;
  } catch {
    return null;
  }
}

export function absolutizeUrls($: CheerioAPI, pageUrl: string) {
  const declared = $('base[href]').first().attr('href');
  const base = (declared && resolve(declared, pageUrl)) || pageUrl;
  $('a[href], area[href]').each((_, element) => {
    const href = resolve($(element).attr('href')!, base);
    if (href) $(element).attr('href', href);
  });
  $('img').each((_, element) => {
    const $img = $(element);
    const src = $img.attr('src');
    // Lazy-loaded images keep the real source in data-src and a placeholder (or nothing) in src.
    const lazy = $img.attr('data-src');
    const chosen = lazy && (!src || src.startsWith('data:')) ? lazy : src;
    const absolute = chosen ? resolve(chosen, base) : null;
    if (absolute) $img.attr('src', absolute);
  });
}

export function dropUnusableUrls($: CheerioAPI) {
  $('a[href]')
    .filter((_, element) => /^\s*javascript:/i.test($(element).attr('href')!))
    .removeAttr('href');
  $('img[src]')
    .filter((_, element) => /^\s*data:/i.test($(element).attr('src')!))
    .removeAttr('src');
}
