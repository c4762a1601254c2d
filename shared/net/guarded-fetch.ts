// The one dispatcher every outbound HTTP request of the service goes through (page fetches, webhooks).
// Addresses are checked where the connection is made, on the address actually connected to, so a name that
// resolves to a public address for a pre-check and to a private one a moment later gains nothing.
import diagnostics from 'node:diagnostics_channel';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, buildConnector, type DiagnosticsChannel, type Dispatcher, request } from 'undici';
import { CategorizedError } from '../errors.js';
import { withoutTracePropagation } from '../telemetry/propagation.js';
import {
  type AddressPolicy,
  checkUrl,
  defaultLookup,
  hostIsIpLiteral,
  isAddressAllowed,
  type LookupFn,
  literalAddress,
  resolveAndCheck,
  ssrfRefusal,
} from './address-policy.js';

export const DEFAULT_USER_AGENT = 'ExtractService/0.1 (+https://github.com/)';
const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 5;
const CONNECT_TIMEOUT_MS = 10_000;
// A redirect's body is read and dropped so its connection can be reused; past this, the socket is dropped.
const REDIRECT_BODY_LIMIT = 64 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Headers that describe a body; dropped with the body when a redirect turns the request into a GET.
const BODY_HEADERS = [
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-location',
];
// Credentials meant for one origin must not follow a redirect to another.
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

export interface GuardedRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole request: every redirect hop, connecting, and reading the body. Default 15000. */
  timeoutMs?: number;
  /** Largest body accepted. Default 10 MiB. */
  maxBytes?: number;
  /**
   * A body over maxBytes fails with content_too_large (default); with true its first maxBytes bytes are kept
   * (`truncated: true`) and the rest is not downloaded (robots.txt: RFC 9309 parses a prefix).
   */
  truncate?: boolean;
  /** Default 5; 0 returns the redirect response itself. */
  maxRedirects?: number;
  policy: AddressPolicy;
  signal?: AbortSignal;
  /** Overrides the User-Agent header; default DEFAULT_USER_AGENT unless headers carry one. */
  userAgent?: string;
  /** Name resolution for this call (tests); the default is dns.lookup with { all: true }. */
  lookup?: LookupFn;
  /**
   * Sees the final response's status and headers before its body is read; throwing refuses the response
   * without downloading it (a PDF need not be read to be turned down).
   */
  inspectResponse?: (status: number, headers: Record<string, string>) => void;
  /**
   * Sends the caller's trace along (W3C `traceparent`): for the tenant's webhooks. Off by default: scraped
   * sites and their robots.txt get no trace headers (shared/telemetry/propagation.ts).
   */
  propagateTrace?: boolean;
  /**
   * Headers sent only on hops to this origin (a stored site's session): added to each request whose scheme,
   * host and port are the origin's, never to a hop a redirect took elsewhere (another port of the same host,
   * or the same host over plain http, is another origin).
   */
  originHeaders?: OriginHeaders;
}

export interface OriginHeaders {
  /** `URL.origin` form: scheme://host[:port], the port only when not the scheme's default. */
  origin: string;
  headers: Record<string, string>;
}

export interface GuardedResponse {
  /** Final URL, after redirects. */
  url: string;
  status: number;
  /** Lower-cased names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
  /** Each URL a redirect led to, in order. */
  redirects: string[];
  /** Address of the peer that answered the final request, when known. */
  remoteAddress?: string;
  durationMs: number;
  /** Only with `truncate`: the body is the first maxBytes bytes of a longer one. */
  truncated: boolean;
}

interface Hop {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

interface CallContext {
  agent: Agent;
  policy: AddressPolicy;
  deadline: Deadline;
  maxBytes: number;
  truncate: boolean;
  /** The hop in flight, so transport errors can name the host they concern. */
  current: URL;
  inspect?: GuardedRequest['inspectResponse'];
  originHeaders?: OriginHeaders;
}

export async function guardedFetch(req: GuardedRequest): Promise<GuardedResponse> {
  const started = performance.now();
  const url = checkUrl(req.url);
  if (req.signal?.aborted) throw abortedError();
  watchSockets();
  const deadline = new Deadline(req.timeoutMs ?? DEFAULT_TIMEOUT_MS, req.signal);
  const lease = leaseAgent(req.policy, req.lookup);
  const ctx: CallContext = {
    agent: lease.agent,
    policy: req.policy,
    deadline,
    maxBytes: req.maxBytes ?? DEFAULT_MAX_BYTES,
    truncate: req.truncate ?? false,
    current: url,
    inspect: req.inspectResponse,
    originHeaders: req.originHeaders,
  };
  try {
    const send = () => followRedirects(firstHop(req, url), req.maxRedirects ?? DEFAULT_MAX_REDIRECTS, ctx);
    const res = await (req.propagateTrace ? send() : withoutTracePropagation(send));
    return { ...res, durationMs: Math.round(performance.now() - started) };
  } catch (err) {
    throw categorize(err, deadline, ctx.current);
  } finally {
    deadline.dispose();
    await lease.release();
  }
}

async function followRedirects(
  first: Hop,
  maxRedirects: number,
  ctx: CallContext,
): Promise<Omit<GuardedResponse, 'durationMs'>> {
  const redirects: string[] = [];
  const visited = new Set([hopKey(first)]);
  let hop = first;
  for (;;) {
    ctx.current = hop.url;
    const { res, remoteAddress } = await send(hop, ctx);
    const location = maxRedirects > 0 ? redirectLocation(res) : null;
    if (location === null) {
      const headers = flattenHeaders(res.headers);
      try {
        ctx.inspect?.(res.statusCode, headers);
      } catch (err) {
        res.body.destroy(); // refused unread: abort the download
        throw err;
      }
      const { body, truncated } = await readBody(res, ctx.maxBytes, ctx.truncate);
      return {
        url: hop.url.href,
        status: res.statusCode,
        headers,
        body,
        redirects,
        remoteAddress,
        truncated,
      };
    }
    await res.body.dump({ limit: REDIRECT_BODY_LIMIT });
    const next = nextHop(hop, res.statusCode, location);
    if (visited.has(hopKey(next))) {
      throw new CategorizedError('fetch_error', `redirect loop at ${next.url.href}`, false, {
        reason: 'redirect_loop',
        url: next.url.href,
      });
    }
    if (redirects.length >= maxRedirects) {
      throw new CategorizedError('fetch_error', `more than ${maxRedirects} redirects`, false, {
        reason: 'too_many_redirects',
        redirects,
      });
    }
    visited.add(hopKey(next));
    redirects.push(next.url.href);
    hop = next;
  }
}

async function send(
  hop: Hop,
  ctx: CallContext,
): Promise<{ res: Dispatcher.ResponseData; remoteAddress?: string }> {
  // IP literals never reach the resolver; refuse them before any request exists. The connector checks again.
  if (hostIsIpLiteral(hop.url.hostname)) await resolveAndCheck(hop.url.hostname, ctx.policy);
  const tag: SocketTag = {};
  const timeoutMs = ctx.deadline.timeoutMs;
  const res = await tagged(tag, () =>
    request(hop.url.href, {
      dispatcher: ctx.agent,
      method: hop.method as Dispatcher.HttpMethod,
      headers: withOriginHeaders(hop, ctx.originHeaders),
      body: hop.body,
      signal: ctx.deadline.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    }),
  );
  // Every body is read or abandoned by us; an abandoned one may still emit an error nobody else listens to.
  res.body.on('error', noop);
  return { res, remoteAddress: tag.remoteAddress };
}

/** The hop's headers, plus the origin's own ones when the hop goes to exactly that origin. */
function withOriginHeaders(hop: Hop, scoped: OriginHeaders | undefined): Record<string, string> {
  if (!scoped || hop.url.origin !== scoped.origin) return hop.headers;
  const headers = { ...hop.headers };
  for (const [name, value] of Object.entries(scoped.headers)) headers[name.toLowerCase()] = value;
  return headers;
}

function firstHop(req: GuardedRequest, url: URL): Hop {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers ?? {})) headers[name.toLowerCase()] = value;
  if (req.userAgent !== undefined) headers['user-agent'] = req.userAgent;
  headers['user-agent'] ??= DEFAULT_USER_AGENT;
  return { url, method: (req.method ?? 'GET').toUpperCase(), headers, body: req.body };
}

function redirectLocation(res: Dispatcher.ResponseData): string | null {
  if (!REDIRECT_STATUSES.has(res.statusCode)) return null;
  const location = res.headers['location'];
  const value = Array.isArray(location) ? location[0] : location;
  return value ? value : null;
}

function nextHop(hop: Hop, status: number, location: string): Hop {
  const url = redirectUrl(hop.url, location);
  const headers = { ...hop.headers };
  let { method, body } = hop;
  // As browsers do: 303 always becomes GET, and 301/302 turn a POST into a GET; 307/308 keep both.
  if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = undefined;
    for (const name of BODY_HEADERS) delete headers[name];
  }
  if (url.origin !== hop.url.origin) {
    for (const name of ORIGIN_BOUND_HEADERS) delete headers[name];
  }
  return { url, method, headers, body };
}

function redirectUrl(base: URL, location: string): URL {
  try {
    return checkUrl(new URL(location, base).href);
  } catch (err) {
    // The caller's input was fine; the site redirected somewhere we will not go.
    const why = err instanceof CategorizedError ? err.message : 'not a valid URL';
    throw new CategorizedError('fetch_error', `unusable redirect from ${base.href}: ${why}`, false, {
      reason: 'invalid_redirect',
      location,
    });
  }
}

/** Identity of a request for loop detection; the method counts, so POST /form → 303 → GET /form is fine. */
function hopKey(hop: Hop): string {
  const url = new URL(hop.url.href);
  url.hash = '';
  return `${hop.method} ${url.href}`;
}

async function readBody(
  res: Dispatcher.ResponseData,
  maxBytes: number,
  truncate: boolean,
): Promise<{ body: Buffer; truncated: boolean }> {
  const declared = Number(res.headers['content-length']);
  if (!truncate && Number.isFinite(declared) && declared > maxBytes) {
    res.body.destroy(); // aborts the request and drops the connection; nothing is read
    throw tooLarge(maxBytes, { declaredBytes: declared });
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    // Checked before keeping the chunk: leaving the loop destroys the stream, which aborts the download.
    if (total + chunk.length > maxBytes) {
      if (!truncate) throw tooLarge(maxBytes, { receivedBytes: total + chunk.length });
      chunks.push(chunk.subarray(0, maxBytes - total));
      return { body: Buffer.concat(chunks, maxBytes), truncated: true };
    }
    total += chunk.length;
    chunks.push(chunk);
  }
  return { body: Buffer.concat(chunks, total), truncated: false };
}

function tooLarge(maxBytes: number, details: Record<string, unknown>): CategorizedError {
  return new CategorizedError('content_too_large', `the response is larger than ${maxBytes} bytes`, false, {
    maxBytes,
    ...details,
  });
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

// ---- Deadline and cancellation ----------------------------------------------------------------------------

/** One abort signal for the whole call, fired by the overall timeout or by the caller's signal. */
class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  timedOut = false;
  cancelled = false;

  constructor(
    readonly timeoutMs: number,
    private readonly callerSignal?: AbortSignal,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private readonly onCallerAbort = () => {
    this.cancelled = true;
    this.controller.abort(new Error('aborted by the caller'));
  };

  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }
}

function abortedError(): CategorizedError {
  return new CategorizedError('fetch_error', 'aborted', false, { reason: 'aborted' });
}

// ---- Error mapping ----------------------------------------------------------------------------------------

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
// Transient network trouble: worth another attempt later. DNS "no such name" (ENOTFOUND) is not.
const RETRYABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]);

function categorize(err: unknown, deadline: Deadline, url: URL): CategorizedError {
  const known = findInChain(err, (e) => e instanceof CategorizedError);
  if (known instanceof CategorizedError) return known;
  if (deadline.timedOut) {
    return new CategorizedError(
      'fetch_timeout',
      `${url.host} did not answer within ${deadline.timeoutMs} ms`,
      true,
      {
        timeoutMs: deadline.timeoutMs,
      },
    );
  }
  if (deadline.cancelled) return abortedError();
  const code = errorCode(err);
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return new CategorizedError('fetch_timeout', `${url.host} timed out (${code})`, true, { code });
  }
  if (code !== undefined && isTlsCode(code)) {
    // A bad certificate or a broken handshake will be the same on the next try.
    return new CategorizedError('fetch_error', `TLS error from ${url.host}: ${code}`, false, {
      code,
      host: url.host,
      reason: 'tls',
    });
  }
  const message =
    code === 'ENOTFOUND'
      ? `could not resolve ${url.hostname}`
      : `fetching ${url.host} failed: ${code ?? describe(err)}`;
  return new CategorizedError('fetch_error', message, code !== undefined && RETRYABLE_CODES.has(code), {
    code,
    host: url.host,
  });
}

/** Node's certificate codes (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, …) and OpenSSL's ERR_SSL_*. */
function isTlsCode(code: string): boolean {
  return /CERT|SSL|TLS|UNABLE_TO_(GET|VERIFY)/.test(code);
}

/** Undici and net wrap the real cause (err.cause, AggregateError.errors); prefer a code we know. */
function errorCode(err: unknown): string | undefined {
  const codeOf = (e: unknown) => (e as { code?: unknown } | null)?.code;
  const knownCode = (e: unknown) => {
    const code = codeOf(e);
    return (
      typeof code === 'string' &&
      (TIMEOUT_CODES.has(code) || RETRYABLE_CODES.has(code) || code === 'ENOTFOUND')
    );
  };
  const found = findInChain(err, knownCode) ?? findInChain(err, (e) => typeof codeOf(e) === 'string');
  return found === undefined ? undefined : (codeOf(found) as string);
}

function findInChain(err: unknown, matches: (e: unknown) => boolean): unknown {
  const queue = [err];
  const seen = new Set<unknown>();
  while (queue.length > 0 && seen.size < 20) {
    const e = queue.shift();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    if (matches(e)) return e;
    const { cause, errors } = e as { cause?: unknown; errors?: unknown };
    queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return undefined;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// ---- Agents and the guarded connector ---------------------------------------------------------------------

interface AgentLease {
  agent: Agent;
  release: () => Promise<void>;
}

/** One keep-alive Agent per allowPrivate value, shared by all calls. */
const sharedAgents = new Map<boolean, Agent>();

function leaseAgent(policy: AddressPolicy, lookup?: LookupFn): AgentLease {
  // An injected lookup or address hook belongs to one call (tests, allow-lists); its Agent must not serve
  // other calls, so it lives and dies with this one.
  if (lookup !== undefined || policy.isAllowed !== undefined) {
    const agent = createAgent({ allowPrivate: policy.allowPrivate, isAllowed: policy.isAllowed }, lookup);
    return { agent, release: () => agent.destroy().catch(noop) };
  }
  let agent = sharedAgents.get(policy.allowPrivate);
  if (agent === undefined) {
    agent = createAgent({ allowPrivate: policy.allowPrivate }, undefined);
    sharedAgents.set(policy.allowPrivate, agent);
  }
  return { agent, release: async () => {} };
}

/** Closes the shared Agents (graceful shutdown, end of tests); later calls create new ones. */
export async function closeGuardedAgents(): Promise<void> {
  const agents = [...sharedAgents.values()];
  sharedAgents.clear();
  await Promise.all(agents.map((agent) => agent.close()));
}

function createAgent(policy: AddressPolicy, lookup: LookupFn | undefined): Agent {
  return new Agent({
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 60_000,
    // Per-request values from the caller's timeout override these; they only bound a forgotten default.
    headersTimeout: DEFAULT_TIMEOUT_MS,
    bodyTimeout: DEFAULT_TIMEOUT_MS,
    connect: guardedConnector(policy, lookup ?? defaultLookup),
  });
}

/**
 * Opens sockets only to allowed addresses: names go through a lookup that refuses if any address is not
 * allowed (net connects to what that lookup returns, so there is no second resolution to rebind), literals
 * are checked directly because net skips the lookup for them, and the connected peer is checked last.
 */
function guardedConnector(policy: AddressPolicy, lookupFn: LookupFn): buildConnector.connector {
  const connect = buildConnector({ timeout: CONNECT_TIMEOUT_MS, lookup: checkedLookup(policy, lookupFn) });
  return (options, callback) => {
    const literal = literalAddress(options.hostname);
    if (literal !== null && !isAddressAllowed(literal, policy)) {
      const refused = ssrfRefusal(options.hostname);
      queueMicrotask(() => callback(refused, null));
      return;
    }
    connect(options, (err, socket) => {
      if (err !== null) return callback(err, null);
      const peer = socket.remoteAddress;
      if (peer === undefined || !isAddressAllowed(peer, policy)) {
        socket.destroy();
        return callback(ssrfRefusal(options.hostname), null);
      }
      callback(null, socket);
    });
  };
}

/** A net.connect lookup that answers only with addresses resolveAndCheck let through. */
function checkedLookup(policy: AddressPolicy, lookupFn: LookupFn): net.LookupFunction {
  return (hostname, options, callback) => {
    resolveAndCheck(hostname, policy, lookupFn).then(
      (addresses) => answerLookup(hostname, addresses, options, callback),
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

function answerLookup(
  hostname: string,
  addresses: LookupAddress[],
  options: LookupOptions,
  callback: Parameters<net.LookupFunction>[2],
): void {
  const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
  const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
  const first = usable[0];
  if (first === undefined) {
    const err: NodeJS.ErrnoException = Object.assign(new Error(`no IPv${family} address for ${hostname}`), {
      code: 'ENOTFOUND',
    });
    callback(err, '');
    return;
  }
  // With autoSelectFamily (the default since Node 20) net asks for all addresses and tries them in turn.
  if (options.all) callback(null, usable);
  else callback(null, first.address, first.family);
}

// ---- Which socket served a request ------------------------------------------------------------------------
// Undici does not hand the socket to request() callers; its diagnostics channels do. A request is tagged while
// request() runs (undici creates it synchronously there) and the tag learns the peer when headers go out.

interface SocketTag {
  remoteAddress?: string;
}

const socketTags = new WeakMap<object, SocketTag>();
let tagForNextRequest: SocketTag | null = null;
let watching = false;

function watchSockets(): void {
  if (watching) return;
  watching = true;
  diagnostics.subscribe('undici:request:create', (message) => {
    if (tagForNextRequest)
      socketTags.set((message as DiagnosticsChannel.RequestCreateMessage).request, tagForNextRequest);
  });
  diagnostics.subscribe('undici:client:sendHeaders', (message) => {
    const { request: sent, socket } = message as DiagnosticsChannel.ClientSendHeadersMessage;
    const tag = socketTags.get(sent);
    if (tag) tag.remoteAddress = socket.remoteAddress;
  });
}

function tagged<T>(tag: SocketTag, start: () => T): T {
  tagForNextRequest = tag;
  try {
    return start();
  } finally {
    tagForNextRequest = null;
  }
}

function noop(): void {}

/**
 * The shared guarded dispatcher, for clients that bring their own HTTP stack (the model SDKs take a
 * `fetch`): every connection it opens is resolved and checked against the address policy first.
 */
export function guardedDispatcher(allowPrivate: boolean): Dispatcher {
  return leaseAgent({ allowPrivate }).agent;
}
