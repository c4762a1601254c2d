// A page's structured data as the HTML pool reads it (activities/reading/structured-data/read.ts). Types
// only: the items travel from the pool's threads to the extractor, and with a cleaned page's stored content.

/**
 * `page` is no entity: the labels of the page's buttons and stock badges (`props.labels`), which cleaning
 * drops with forms; read only to confirm a structured availability ("Add to cart", "Sold out").
 */
export type StructuredSource = 'json-ld' | 'microdata' | 'rdfa' | 'meta' | 'page';

/** One schema.org-like entity: its types (e.g. Product) and its properties, nested entities as objects. */
export interface StructuredItem {
  source: StructuredSource;
  types: string[];
  props: Record<string, unknown>;
}

/**
 * Where a page's data came from: its structured data alone, a learned extractor alone (selectors
 * learned from the model's answers on pages of the same template), the model alone, or more than one.
 */
export type DataSource = 'structured_data' | 'learned_extractor' | 'model' | 'mixed';
export const DATA_SOURCES = ['structured_data', 'learned_extractor', 'model', 'mixed'] as const;

/** Where one field's value came from (per-field provenance). */
export interface FieldProvenance {
  source: 'structured_data' | 'learned_extractor' | 'model';
  /** Structured data: the entity and property path read, e.g. `json-ld Product offers.price`. */
  path?: string;
  /** Learned extractor: the CSS selector read. */
  selector?: string;
  /**
   * Model answers: whether the value occurs verbatim in the content the model was sent (strings by their
   * text, numbers as written in any usual way, lists and objects by every value inside); null for values
   * that cannot be looked up (booleans, empty values).
   */
  in_page?: boolean | null;
  /** Model answers found in the page: the character offset of the first occurrence in that content. */
  offset?: number;
}
