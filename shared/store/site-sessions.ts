// Stored sites' sessions. `_id` = `<tenant id>:<site id>`, so another tenant's site simply misses. Cookies,
// headers and secrets are one JSON value sealed with SECRETS_KEY; the document keeps only their names in the
// clear, for GET. Only the worker's activity opens the sealed value, right before a fetch or a login.
import type { Db } from 'mongodb';
import type {
  LoggedOutRule,
  LoginRecipe,
  SessionCookie,
  SiteSession,
  SiteSessionPut,
} from '../schemas/site-session.js';
import type { SecretBox } from '../secrets.js';
import { COLLECTIONS, isDuplicateKey } from './mongo.js';

export interface SiteSessionDoc {
  _id: string;
  tenant_id: string;
  site_id: string;
  /** The site's URL (a site keeps it for life): its host is the only one the session goes to. */
  site_url: string;
  /** `{cookies, headers, secrets}` as JSON, sealed. */
  sealed: string;
  cookie_names: string[];
  header_names: string[];
  secret_names: string[];
  login: LoginRecipe | null;
  logged_out: LoggedOutRule | null;
  cookies_updated_at: string | null;
  last_login_at: string | null;
  last_login_error: string | null;
  created_at: string;
  updated_at: string;
}

/** The opened values: for the activity that fetches or logs in, never returned anywhere. */
export interface SessionValues {
  cookies: SessionCookie[];
  headers: Record<string, string>;
  secrets: Record<string, string>;
}

export interface OpenedSession extends SessionValues {
  doc: SiteSessionDoc;
}

const key = (tenantId: string, siteId: string) => `${tenantId}:${siteId}`;

export class SiteSessionStore {
  constructor(
    private readonly db: Db,
    private readonly box: () => SecretBox,
  ) {}

  private get sessions() {
    return this.db.collection<SiteSessionDoc>(COLLECTIONS.siteSessions);
  }
  private get logins() {
    return this.db.collection<{ _id: string; at: string }>(COLLECTIONS.siteSessionLogins);
  }

  async get(tenantId: string, siteId: string): Promise<SiteSessionDoc | null> {
    return this.sessions.findOne({ _id: key(tenantId, siteId) });
  }

  /** Replaces the site's session as a whole. */
  async put(
    tenantId: string,
    site: { id: string; url: string },
    input: SiteSessionPut,
  ): Promise<SiteSessionDoc> {
    const siteId = site.id;
    const now = new Date().toISOString();
    const existing = await this.get(tenantId, siteId);
    const values: SessionValues = { cookies: input.cookies, headers: input.headers, secrets: input.secrets };
    const doc: SiteSessionDoc = {
      _id: key(tenantId, siteId),
      tenant_id: tenantId,
      site_id: siteId,
      site_url: site.url,
      ...this.sealedFields(values),
      login: input.login,
      logged_out: input.logged_out,
      cookies_updated_at: input.cookies.length ? now : null,
      last_login_at: null,
      last_login_error: null,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    await this.sessions.replaceOne({ _id: doc._id }, doc, { upsert: true });
    return doc;
  }

  async delete(tenantId: string, siteId: string): Promise<boolean> {
    return (await this.sessions.deleteOne({ _id: key(tenantId, siteId) })).deletedCount === 1;
  }

  /** The session with its values opened, or null when the site has none. */
  async open(tenantId: string, siteId: string): Promise<OpenedSession | null> {
    const doc = await this.get(tenantId, siteId);
    if (!doc) return null;
    return { doc, ...(JSON.parse(this.box().open(doc.sealed)) as SessionValues) };
  }

  /**
   * A login's cookies replace the stored ones (headers and secrets stay). Only if the session is still the
   * version `session` read, so two logins at once keep one result: the first to take the version's claim
   * (an `_id`) writes. Read and written by `_id` alone (a filter on updated_at too would read every session).
   */
  async loggedIn(session: OpenedSession, cookies: SessionCookie[]): Promise<OpenedSession | null> {
    const now = new Date().toISOString();
    const values: SessionValues = { cookies, headers: session.headers, secrets: session.secrets };
    const fields = {
      ...this.sealedFields(values),
      cookies_updated_at: now,
      last_login_at: now,
      last_login_error: null,
      updated_at: now,
    };
    const _id = session.doc._id;
    try {
      await this.logins.insertOne({ _id: `${_id}:${session.doc.updated_at}`, at: now });
    } catch (err) {
      if (isDuplicateKey(err)) return null;
      throw err;
    }
    // Replaced meanwhile (PUT): that version stands.
    if ((await this.sessions.findOne({ _id }))?.updated_at !== session.doc.updated_at) return null;
    const doc = await this.sessions.findOneAndUpdate({ _id }, { $set: fields }, { returnDocument: 'after' });
    return doc ? { doc, ...values } : null;
  }

  /** Records why a login failed (shown by GET, without any value). */
  async loginFailed(session: OpenedSession, reason: string): Promise<void> {
    const now = new Date().toISOString();
    await this.sessions.updateOne(
      { _id: session.doc._id },
      { $set: { last_login_at: now, last_login_error: reason.slice(0, 500) } },
    );
  }

  private sealedFields(values: SessionValues) {
    return {
      sealed: this.box().seal(JSON.stringify(values)),
      cookie_names: values.cookies.map((c) => c.name),
      header_names: Object.keys(values.headers),
      secret_names: Object.keys(values.secrets),
    };
  }
}

/** The session as GET answers it: names and dates. */
export function sessionResource(doc: SiteSessionDoc): SiteSession {
  return {
    site_id: doc.site_id,
    cookie_names: doc.cookie_names,
    header_names: doc.header_names,
    secret_names: doc.secret_names,
    login: doc.login ? { url: doc.login.url, steps: doc.login.actions.length } : null,
    logged_out: doc.logged_out
      ? { selector: doc.logged_out.selector ?? null, url_pattern: doc.logged_out.url_pattern ?? null }
      : null,
    cookies_updated_at: doc.cookies_updated_at,
    last_login_at: doc.last_login_at,
    last_login_error: doc.last_login_error,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}
