// The held-out split of bench:real: about 30% of the sites, chosen by a hash of the site's folder name so the
// split never changes. Tuning looks at the dev split only (`--split dev`); the held-out figures say how the
// rules do on sites they were not fitted to.
import { createHash } from 'node:crypto';

export type Split = 'dev' | 'holdout';
export const SPLITS: Split[] = ['dev', 'holdout'];

export function splitOf(site: string): Split {
  const n = Number.parseInt(createHash('sha1').update(site).digest('hex').slice(0, 8), 16);
  return n % 10 < 3 ? 'holdout' : 'dev';
}

/** Half a or b of a split's sites, by another hash of the site's name: rules fitted on one half, tried on the other. */
export function halfOf(site: string): 'a' | 'b' {
  const n = Number.parseInt(createHash('sha1').update(`half:${site}`).digest('hex').slice(0, 8), 16);
  return n % 2 === 0 ? 'a' : 'b';
}
