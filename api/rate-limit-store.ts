// The store behind @fastify/rate-limit: the per-tenant window counted in the database (shared/store/
// rate-windows.ts), so every API process sees the same count. One round trip per rate-limited request.
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Db } from 'mongodb';
import { RateWindows } from '../shared/store/rate-windows.js';

/** The plugin calls incr with the window length and limit too, though its types leave them out. */
type Incr = (
  key: string,
  callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
  timeWindow?: number,
) => void;

export function sharedRateLimitStore(db: Db, defaultWindowMs: number): FastifyRateLimitStoreCtor {
  const windows = new RateWindows(db);
  class SharedStore implements FastifyRateLimitStore {
    incr: Incr = (key, callback, timeWindow = defaultWindowMs) => {
      windows.hit(`rate:${key}`, timeWindow).then(
        ({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }),
        (err: Error) => callback(err),
      );
    };
    child(): FastifyRateLimitStore {
      return this;
    }
  }
  return SharedStore;
}
