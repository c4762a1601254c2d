// Provider keys at rest: AES-256-GCM with the operator's SECRETS_KEY (32 bytes, base64 or hex). The stored
// form is `v1.<iv>.<tag>.<ciphertext>` in base64url; a wrong key or a tampered value fails to decrypt.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** The operator has not configured SECRETS_KEY, so nothing secret can be stored or opened. */
export class SecretsUnavailableError extends Error {}

export class SecretBox {
  private readonly key: Buffer;

  constructor(secretsKey: string | undefined) {
    if (!secretsKey) {
      throw new SecretsUnavailableError(
        'SECRETS_KEY is not set: provider keys cannot be stored. Set it to 32 random bytes (base64), e.g. `openssl rand -base64 32`',
      );
    }
    const key = /^[0-9a-f]{64}$/i.test(secretsKey)
      ? Buffer.from(secretsKey, 'hex')
      : Buffer.from(secretsKey, 'base64');
    if (key.length !== 32) throw new Error('SECRETS_KEY must be 32 bytes (base64 or 64 hex characters)');
    this.key = key;
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), body]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /** A key of its own for one purpose (e.g. signing download links), derived from SECRETS_KEY by HKDF. */
  derivedKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `extract-service:${purpose}`, 32));
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}

/** Replaces anything that looks like a credential in free text (error messages, captured prompts). */
export function redactSecrets(text: string, known: readonly string[] = []): string {
  let out = text;
  for (const secret of known) if (secret && secret.length >= 6) out = out.split(secret).join('[REDACTED]');
  return out
    .replace(/\b(sk|pk|rk)[-_](?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{12,}\b/g, '[REDACTED]')
    .replace(/\b(Bearer)\s+[A-Za-z0-9._~+/-]{12,}=*/gi, '$1 [REDACTED]');
}
