// Signed download links for a job's results (GET /api/v1/jobs/{id}/download → GET /downloads/{token}): the
// token holds the tenant, the job, the format and the expiry, and an HMAC-SHA256 of them with a key derived from
// SECRETS_KEY. It carries no API key; changing any part of it breaks the signature.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ResultFormat } from './schemas/results.js';

export const DOWNLOAD_TTL_MS = 60 * 60 * 1000;
export const DOWNLOAD_KEY_PURPOSE = 'download-links';

export interface DownloadGrant {
  tenantId: string;
  jobId: string;
  format: ResultFormat;
  /** Epoch milliseconds. */
  expiresAt: number;
}

const mac = (key: Buffer, body: string) => createHmac('sha256', key).update(body).digest();

export function signDownload(key: Buffer, grant: DownloadGrant): string {
  const body = Buffer.from(
    JSON.stringify({ t: grant.tenantId, j: grant.jobId, f: grant.format, e: grant.expiresAt }),
  ).toString('base64url');
  return `${body}.${mac(key, body).toString('base64url')}`;
}

/** The grant of a genuine token (expired or not), or null for anything else. */
export function readDownload(key: Buffer, token: string): DownloadGrant | null {
  const [body, signature, extra] = token.split('.');
  if (!body || !signature || extra !== undefined) return null;
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(key, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const { t, j, f, e } = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    if (typeof t !== 'string' || typeof j !== 'string' || typeof e !== 'number') return null;
    if (f !== 'json' && f !== 'jsonl' && f !== 'yaml') return null;
    return { tenantId: t, jobId: j, format: f, expiresAt: e };
  } catch {
    return null;
  }
}
