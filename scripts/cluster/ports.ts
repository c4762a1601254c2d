// The cluster's ports: free ones on loopback, each handed out once (a port stays free until its process
// binds it, which for a worker's /metrics is seconds after its start).
import type { TemporalClusterPorts } from '../../temporal-config/cluster.js';
import { freePort, isPortFree } from '../lib/ports.js';

/**
 * Ports handed out in this process: a port is free until its process binds it, which for a worker's
 * /metrics is seconds later, so a port once given is never given again.
 */
const given = new Set<number>();

export async function uniqueFreePort(pick: () => Promise<number> = freePort): Promise<number> {
  for (;;) {
    const port = await pick();
    if (!given.has(port)) {
      given.add(port);
      return port;
    }
  }
}

export async function portOr(port: number | undefined): Promise<number> {
  if (port && port > 0) {
    given.add(port);
    return port;
  }
  return uniqueFreePort();
}

/** A free port below 32768: Temporal's SQL schema keeps a membership port in a smallint. */
async function lowFreePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await isPortFree(port)) return port;
  }
}

export async function temporalPorts(frontend: number): Promise<TemporalClusterPorts> {
  const others: number[] = [];
  while (others.length < 8) {
    others.push(await uniqueFreePort(lowFreePort));
  }
  const [http, history, matching, worker, m1, m2, m3, m4] = others as [number, ...number[]];
  return {
    frontend,
    frontendHttp: http,
    history: history as number,
    matching: matching as number,
    worker: worker as number,
    membership: [m1 as number, m2 as number, m3 as number, m4 as number],
    metrics: await uniqueFreePort(),
  };
}
