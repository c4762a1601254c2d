// Checks a webhook delivery's signature, as the service signs them (Web Crypto: Node 20, Deno, Bun, workers).
// Standard Webhooks: "webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>", keyed by the secret's
// UTF-8 bytes, or for a "whsec_<base64>" secret its decoded bytes. Older receivers may check
// "x-service-signature": lowercase hex HMAC-SHA256 of the body keyed by the secret's UTF-8 bytes.

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Largest age (and clock skew) of webhook-timestamp accepted, against replays (default 300 s). */
  toleranceSeconds?: number;
  now?: () => number;
}

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

/**
 * True when the delivery was signed with `secret`. Pass the raw body exactly as received (the bytes, or
 * their UTF-8 text), not a re-serialised JSON value.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): Promise<boolean> {
  const body: Bytes = typeof rawBody === 'string' ? encoder.encode(rawBody) : new Uint8Array(rawBody);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id && timestamp && signatures) {
    const now = (options.now?.() ?? Date.now()) / 1000;
    if (!/^\d+$/.test(timestamp) || Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) {
      return false;
    }
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
  const hex = header(headers, 'x-service-signature');
  const signature = hex ? fromHex(hex) : undefined;
  return signature ? hmacVerify(encoder.encode(secret), body, signature) : false;
}
