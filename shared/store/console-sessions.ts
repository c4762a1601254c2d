// The console's sign-ins: server-side sessions and one-time sign-in links. Both are random tokens the browser
// (or the operator's terminal) holds; the store keeps only their SHA-256 as `_id`, so a lookup is one keyed read.
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';

export interface ConsoleSession {
  /** SHA-256 of the cookie's value. */
  _id: string;
  tenant_id: string;
  /** Sent back by the console on every state-changing request (X-CSRF-Token). */
  csrf_token: string;
  /** The API key the session was opened with (its public id); null when opened with a sign-in link. */
  key_id: string | null;
  /** That key's stored `_id`: the session ends when the key is revoked or expires. */
  key_hash: string | null;
  created_at: string;
  expires_at: string;
}

export interface SignInLink {
  _id: string;
  tenant_id: string;
  created_at: string;
  expires_at: string;
}

export const SESSION_TTL_MS = 8 * 3600_000;
export const SIGN_IN_LINK_TTL_MS = 24 * 3600_000;
const SESSIONS = 'console_sessions';
const LINKS = 'console_sign_in_links';

const hash = (token: string) => createHash('sha256').update(token).digest('hex');
const newToken = () => randomBytes(32).toString('base64url');

export class ConsoleSessionStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  private get sessions() {
    return this.db.collection<ConsoleSession>(SESSIONS);
  }
  private get links() {
    return this.db.collection<SignInLink>(LINKS);
  }

  /** Opens a session; answers the cookie's value (never stored) and the record. */
  async open(
    tenantId: string,
    key: { id: string; _id: string } | null,
  ): Promise<{ token: string; session: ConsoleSession }> {
    const token = newToken();
    const now = this.now();
    const session: ConsoleSession = {
      _id: hash(token),
      tenant_id: tenantId,
      csrf_token: newToken(),
      key_id: key?.id ?? null,
      key_hash: key?._id ?? null,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + SESSION_TTL_MS).toISOString(),
    };
    // Sessions are few: ended ones are swept when another opens (no TTL index on FerretDB).
    await this.sessions.deleteMany({ expires_at: { $lt: session.created_at } });
    await this.sessions.insertOne(session);
    return { token, session };
  }

  /** The live session a cookie names; null for an unknown, ended or expired one. */
  async find(token: string): Promise<ConsoleSession | null> {
    const session = await this.sessions.findOne({ _id: hash(token) });
    if (!session) return null;
    if (Date.parse(session.expires_at) <= this.now()) {
      await this.sessions.deleteOne({ _id: session._id });
      return null;
    }
    return session;
  }

  async end(token: string): Promise<void> {
    await this.sessions.deleteOne({ _id: hash(token) });
  }

  /** A one-time sign-in link's token for the tenant (the operator hands out the URL holding it). */
  async createLink(tenantId: string): Promise<string> {
    const token = newToken();
    const now = this.now();
    await this.links.insertOne({
      _id: hash(token),
      tenant_id: tenantId,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + SIGN_IN_LINK_TTL_MS).toISOString(),
    });
    return token;
  }

  /** Uses a link up: the tenant it signs in, once; null when unknown, used or expired. */
  async redeemLink(token: string): Promise<string | null> {
    const link = await this.links.findOneAndDelete({ _id: hash(token) });
    if (!link || Date.parse(link.expires_at) <= this.now()) return null;
    return link.tenant_id;
  }
}

/** The URL that signs a browser in to the console with a link token (a fragment: never sent to a server). */
export const signInUrl = (baseUrl: string, token: string) =>
  `${baseUrl.replace(/\/+$/, '')}/#sign-in=${token}`;
