// Checks a webhook delivery's signature, as the service signs them (Web Crypto: Node 20, Deno, Bun, workers).
// Standard Webhooks: "webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>", keyed by the secret's
// UTF-8 bytes, or for a "whsec_<base64>" secret its decoded bytes; a webhook-timestamp too far from now is
// refused, so a captured delivery cannot be replayed later. The legacy "x-service-signature" (lowercase hex
// HMAC-SHA256 of the body alone, keyed by the secret's UTF-8 bytes) proves no time: it is checked only when
// the caller opts in, and then the body's own signed "timestamp" (the event's time) must be recent.

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Largest age (and clock skew) of webhook-timestamp accepted, against replays (default 300 s). */
  toleranceSeconds?: number;
  /**
   * Accept a delivery without the Standard Webhooks headers when its x-service-signature matches (default
   * false). That signature covers the body only, so a captured delivery passes it again: only its body's
   * "timestamp" (the event's time, the same on every retry) bounds the replay, by `legacyMaxAgeSeconds`.
   */
  allowLegacySignature?: boolean;
  /** With allowLegacySignature: largest age of the body's "timestamp" accepted (default 900 s: the retries). */
  legacyMaxAgeSeconds?: number;
  /** The current time in milliseconds (default Date.now). */
  now?: () => number;
}

const DEFAULT_TOLERANCE_SECONDS = 300;
const DEFAULT_LEGACY_MAX_AGE_SECONDS = 900;

const encoder = new TextEncoder();
type Bytes = Uint8Array<ArrayBuffer>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

function fromBase64(text: string): Bytes | undefined {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function fromHex(text: string): Bytes | undefined {
  if (!/^(?:[0-9a-f]{2})+$/i.test(text)) return undefined;
  return Uint8Array.from(text.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}

async function hmacVerify(key: Bytes, message: Bytes, signature: Bytes) {
  const cryptoKey = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
  return crypto.subtle.verify('HMAC', cryptoKey, signature, message); // constant-time comparison
}

/** Whether a time in seconds is within `tolerance` seconds of now, either way (a bad tolerance accepts none). */
function recent(seconds: number, nowSeconds: number, tolerance: number): boolean {
  return Number.isFinite(seconds) && tolerance >= 0 && Math.abs(nowSeconds - seconds) <= tolerance;
}

async function verifyStandard(
  body: Bytes,
  id: string,
  timestamp: string,
  signatures: string,
  secret: string,
) {
  const key = secret.startsWith('whsec_') ? fromBase64(secret.slice(6)) : encoder.encode(secret);
  if (!key) return false;
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix);
  message.set(body, prefix.length);
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    const signature = version === 'v1' && value ? fromBase64(value) : undefined;
    if (signature && (await hmacVerify(key, message, signature))) return true;
  }
  return false;
}

/** The signed body's own "timestamp" (an ISO date) in seconds, NaN when it has none. */
function bodyTimestamp(body: Bytes): number {
  try {
    const value = (JSON.parse(new TextDecoder().decode(body)) as { timestamp?: unknown }).timestamp;
    return typeof value === 'string' ? Date.parse(value) / 1000 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * True when the delivery was signed with `secret` and is recent. Pass the raw body exactly as received (the
 * bytes, or their UTF-8 text), not a re-serialised JSON value. A delivery without the Standard Webhooks
 * headers (webhook-id, webhook-timestamp, webhook-signature) is refused unless `allowLegacySignature` is set.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): Promise<boolean> {
  const body: Bytes = typeof rawBody === 'string' ? encoder.encode(rawBody) : new Uint8Array(rawBody);
  const nowSeconds = (options.now?.() ?? Date.now()) / 1000;
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id && timestamp && signatures) {
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    if (!/^\d+$/.test(timestamp) || !recent(Number(timestamp), nowSeconds, tolerance)) return false;
    return verifyStandard(body, id, timestamp, signatures, secret);
  }
  // Some Standard Webhooks headers but not all: stripped on the way, never the legacy form.
  if (!options.allowLegacySignature || id || timestamp || signatures) return false;
  const hex = header(headers, 'x-service-signature');
  const signature = hex ? fromHex(hex) : undefined;
  if (!signature || !(await hmacVerify(encoder.encode(secret), body, signature))) return false;
  const maxAge = options.legacyMaxAgeSeconds ?? DEFAULT_LEGACY_MAX_AGE_SECONDS;
  return recent(bodyTimestamp(body), nowSeconds, maxAge);
}
