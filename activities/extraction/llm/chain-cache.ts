// The job's model chain (and its keys), resolved once per job and worker for a while: a crawl's pages would
// otherwise read the same chain and keys for every page.

import type { JobLlmConfig } from '../../../shared/schemas/job-spec.js';
import type { StoreDeps } from '../../common/deps.js';
import { type ResolvedEntry, resolveChain } from './chain.js';

const CHAIN_CACHE_MS = 30_000;

/** The chain of a job, kept CHAIN_CACHE_MS; a failed resolution is not kept, expired ones are dropped. */
export function makeChainCache(deps: Pick<StoreDeps, 'config' | 'llm'>) {
  const chains = new Map<string, { chain: Promise<ResolvedEntry[]>; at: number }>();
  return function chainOf(input: { tenantId: string; jobId: string; llm?: JobLlmConfig }) {
    const now = Date.now();
    const cached = chains.get(input.jobId);
    if (cached && now - cached.at < CHAIN_CACHE_MS) return cached.chain;
    for (const [jobId, entry] of chains) if (now - entry.at >= CHAIN_CACHE_MS) chains.delete(jobId);
    const chain = resolveChain({
      config: deps.config,
      llm: deps.llm,
      tenantId: input.tenantId,
      jobId: input.jobId,
      request: input.llm,
    });
    chains.set(input.jobId, { chain, at: now });
    chain.catch(() => chains.delete(input.jobId));
    return chain;
  };
}
