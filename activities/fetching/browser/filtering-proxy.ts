// The browser's only way out. Chromium resolves names itself, so it is pointed at this proxy on 127.0.0.1,
// which resolves each target once, checks every address with the service's address policy, and connects to
// exactly the addresses it checked (its lookup answers from that result): no second resolution to rebind.
// proxy-chain does the HTTP forwarding and CONNECT tunnelling; the decisions are made here.
import type dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import http from 'node:http';
import type net from 'node:net';
import { RequestError, Server } from 'proxy-chain';
import { CategorizedError, type ErrorCategory } from '../../../shared/errors.js';
import {
  type AddressPolicy,
  defaultLookup,
  type LookupFn,
  resolveAndCheck,
} from '../../../shared/net/address-policy.js';

/** Header on the proxy's own refusals, so a refused document is told apart from the site's answer. */
export const REFUSAL_HEADER = 'x-extract-proxy-refusal';

export interface Refusal {
  category: Extract<ErrorCategory, 'ssrf_blocked' | 'fetch_error'>;
  message: string;
  host: string;
  port: number;
  at: number;
}

export interface ProxyDecision {
  host: string;
  port: number;
  allowed: boolean;
  /** Addresses the proxy will connect to (allowed) or the reason it will not. */
  addresses?: string[];
  refusal?: Refusal;
}

export interface FilteringProxyOptions {
  policy: AddressPolicy;
  /** Name resolution (tests); default dns.lookup with { all: true }. */
  lookup?: LookupFn;
  /** Sees every decision, for logs and tests. */
  onDecision?: (decision: ProxyDecision) => void;
}

export interface FilteringProxy {
  /** `http://127.0.0.1:<port>`, for --proxy-server. */
  url: string;
  port: number;
  /** The proxy's recent refusal of this URL's host and port, if any. */
  refusalFor(url: string): Refusal | undefined;
  close(): Promise<void>;
}

const REFUSAL_TTL_MS = 60_000;
const MAX_REFUSALS = 500;

export async function startFilteringProxy(opts: FilteringProxyOptions): Promise<FilteringProxy> {
  const lookup = opts.lookup ?? defaultLookup;
  const refusals = new Map<string, Refusal>();
  // Its own agent: pooled sockets were all opened by this proxy to checked addresses, never by other code.
  // (HTTPS goes through CONNECT tunnels, which do not pool.)
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const remember = (refusal: Refusal) => {
    const key = targetKey(refusal.host, refusal.port);
    refusals.delete(key);
    refusals.set(key, refusal);
    if (refusals.size > MAX_REFUSALS) refusals.delete(refusals.keys().next().value!);
  };

  const server = new Server({
    host: '127.0.0.1',
    port: 0,
    verbose: false,
    prepareRequestFunction: async ({ hostname, port }) => {
      let addresses: LookupAddress[];
      try {
        addresses = await resolveAndCheck(hostname, opts.policy, lookup);
      } catch (err) {
        const refusal = toRefusal(err, hostname, port);
        remember(refusal);
        opts.onDecision?.({ host: hostname, port, allowed: false, refusal });
        const status = refusal.category === 'ssrf_blocked' ? 403 : 502;
        throw new RequestError(refusal.message, status, { [REFUSAL_HEADER]: refusal.category });
      }
      opts.onDecision?.({ host: hostname, port, allowed: true, addresses: addresses.map((a) => a.address) });
      return { dnsLookup: pinnedLookup(addresses) as typeof dns.lookup, httpAgent };
    },
  });
  await server.listen();
  const port = server.port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    refusalFor(url) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return undefined;
      }
      const defaultPort = parsed.protocol === 'https:' ? 443 : 80;
      const found = refusals.get(targetKey(parsed.hostname, Number(parsed.port || defaultPort)));
      return found && Date.now() - found.at < REFUSAL_TTL_MS ? found : undefined;
    },
    async close() {
      await server.close(true);
      httpAgent.destroy();
    },
  };
}

function targetKey(host: string, port: number): string {
  return `${host.toLowerCase()}:${port}`;
}

function toRefusal(err: unknown, host: string, port: number): Refusal {
  const at = Date.now();
  if (err instanceof CategorizedError && err.category === 'ssrf_blocked') {
    return { category: 'ssrf_blocked', message: err.message, host, port, at };
  }
  const code = (err as { code?: unknown } | null)?.code;
  const message = code === 'ENOTFOUND' ? `could not resolve ${host}` : `resolving ${host} failed`;
  return { category: 'fetch_error', message, host, port, at };
}

/**
 * A dns.lookup stand-in that answers only with addresses already checked, so the socket goes to one of them.
 * IP literals never reach it (net skips the lookup), and they were checked by resolveAndCheck as literals.
 */
export function pinnedLookup(addresses: LookupAddress[]): net.LookupFunction {
  return (hostname, options: LookupOptions, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
    const first = usable[0];
    if (first === undefined) {
      const err = Object.assign(new Error(`no IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' });
      callback(err, '');
      return;
    }
    if (options.all) callback(null, usable);
    else callback(null, first.address, first.family);
  };
}
