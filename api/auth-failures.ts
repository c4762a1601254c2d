// Failed authentications per client address: past AUTH_FAILURE_LIMIT unknown keys in a window, an address
// is refused (429) on every request that needs a key, valid or not, until the window ends. Counted in this
// process's memory behind an interface a shared store (the database) can implement later.
import ipaddr from 'ipaddr.js';

export interface AuthFailureCounter {
  /** Seconds until the address may authenticate again; 0 when it may now. */
  blockedFor(address: string, now?: number): Promise<number>;
  /** Counts one unknown key sent from the address. */
  recordFailure(address: string, now?: number): Promise<void>;
}

/**
 * The address a failure is counted against: an IPv4 address (also when written IPv4-mapped) as it is, an
 * IPv6 address by its /64, since one host commonly holds a whole /64 and could otherwise rotate through it.
 */
export function clientAddressKey(ip: string): string {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(ip);
  } catch {
    return ip;
  }
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}

interface Window {
  start: number;
  failures: number;
}

export class MemoryAuthFailures implements AuthFailureCounter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    /** Addresses tracked at once; the oldest window goes first when more arrive (bounded memory). */
    private readonly maxAddresses = 100_000,
  ) {}

  async blockedFor(address: string, now = Date.now()): Promise<number> {
    const window = this.current(address, now);
    if (!window || window.failures < this.limit) return 0;
    return Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
  }

  async recordFailure(address: string, now = Date.now()): Promise<void> {
    const window = this.current(address, now);
    if (window) {
      window.failures++;
      return;
    }
    if (this.windows.size >= this.maxAddresses) this.evict(now);
    this.windows.set(address, { start: now, failures: 1 });
  }

  /** The address's window while it lasts (an ended one is forgotten). */
  private current(address: string, now: number): Window | undefined {
    const window = this.windows.get(address);
    if (window && now - window.start >= this.windowMs) {
      this.windows.delete(address);
      return undefined;
    }
    return window;
  }

  /**
   * Windows are kept in the order they began (an ended one is deleted, a new one appended), so the oldest
   * are at the front: drop them while they have ended or the table is full.
   */
  private evict(now: number) {
    for (const [address, window] of this.windows) {
      if (this.windows.size < this.maxAddresses && now - window.start < this.windowMs) return;
      this.windows.delete(address);
    }
  }
}
