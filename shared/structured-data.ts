// A page's structured data as the HTML pool reads it (activities/structured-data/read.ts). Types only: the
// items travel from the pool's threads to the extractor, and with a cleaned page's stored content.

export type StructuredSource = 'json-ld' | 'microdata' | 'meta';

/** One schema.org-like entity: its types (e.g. Product) and its properties, nested entities as objects. */
export interface StructuredItem {
  source: StructuredSource;
  types: string[];
  props: Record<string, unknown>;
}

/** Where a page's data came from: its structured data alone, the model alone, or both. */
export type DataSource = 'structured_data' | 'model' | 'mixed';
