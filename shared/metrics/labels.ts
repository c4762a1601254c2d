// Label values that stay bounded whatever the traffic: every series is kept forever by the registry and by
// Prometheus, so a label fed from user input (a model name, an error string) must have a ceiling.
import { isErrorCategory } from '../errors.js';
import { DATA_SOURCES } from '../structured-data.js';
import { JOB_TYPES } from '../temporal-names.js';

export const OTHER = 'other';
export const NONE = 'none';

const KNOWN_PROVIDERS = new Set(['openai', 'anthropic', 'ollama', 'openrouter', 'openai_compatible']);

/** The first `limit` distinct values seen are kept; later new ones read as "other". */
export class CappedLabel {
  private readonly seen = new Set<string>();

  constructor(private readonly limit: number) {}

  of(value: string | null | undefined): string {
    if (!value) return NONE;
    // A label value is an operator-facing name, never a long or odd string (a tenant's own model id).
    if (value.length > 80 || !/^[\w.:/@+-]+$/.test(value)) return OTHER;
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.limit) return OTHER;
    this.seen.add(value);
    return value;
  }
}

export const providerLabel = (provider: string | null | undefined): string =>
  !provider ? NONE : KNOWN_PROVIDERS.has(provider) ? provider : OTHER;

export const jobTypeLabel = (type: string | null | undefined): string =>
  type && (JOB_TYPES as readonly string[]).includes(type) ? type : 'unknown';

export const categoryLabel = (category: unknown): string =>
  isErrorCategory(category) ? category : 'unknown';

export const dataSourceLabel = (source: unknown): string =>
  typeof source === 'string' && (DATA_SOURCES as readonly string[]).includes(source) ? source : 'model';

/** Webhook attempts 1, 2, 3 and "4+" (the retry delays are configurable, so attempts are unbounded). */
export const attemptLabel = (attempt: unknown): string =>
  typeof attempt === 'number' && attempt >= 1 ? (attempt >= 4 ? '4+' : String(attempt)) : 'unknown';
