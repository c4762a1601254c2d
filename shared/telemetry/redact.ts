// Keeps secrets out of log lines: values under secret-sounding keys are replaced, and a last pass over each
// serialized line masks bearer tokens, API/provider keys (sk-…, sk_…, sk-ant-…) and URL credentials, in case
// one slipped into an error message.

export const REDACTED = '[REDACTED]';

const SECRET_KEYS = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'xapikey',
  'apikey',
  'password',
  'secret',
  'token',
  'accesstoken',
  'refreshtoken',
  'privatekey',
  'secretskey',
]);

/** `api_key`, `X-Api-Key`, `webhookSecret`, `client_secret`… (compared without case, `-` or `_`). */
export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[-_]/g, '');
  return SECRET_KEYS.has(k) || k.endsWith('secret') || k.endsWith('apikey') || k.endsWith('password');
}

/** A copy with secret-keyed values replaced; Errors become `{ type, message, stack }`. */
export function redactValue(value: unknown, depth = 0): unknown {
  if (value instanceof Error) {
    const { name, message, stack } = value;
    const cause = (value as { cause?: unknown }).cause;
    return {
      type: name,
      message,
      stack,
      ...(cause !== undefined && depth < 5 ? { cause: redactValue(cause, depth + 1) } : {}),
    };
  }
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value))
    out[key] = isSecretKey(key) ? REDACTED : redactValue(v, depth + 1);
  return out;
}

const PATTERNS: [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi, `$1 ${REDACTED}`],
  [/\bsk[-_][A-Za-z0-9_-]{6,}/g, REDACTED],
  [/\bwhsec_[A-Za-z0-9+/=]{6,}/g, REDACTED],
  [/(\/\/)[^/\s:@"]+:[^/\s@"]+@/g, `$1${REDACTED}@`],
];

/** Masks secret-looking substrings of a serialized log line. */
export function scrubSecrets(line: string): string {
  let out = line;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
