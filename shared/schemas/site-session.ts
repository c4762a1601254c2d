// A stored site's session: cookies and headers sent only to the site's own origin, named
// secrets only its login recipe types, a login recipe the worker replays, and the rule that tells
// a logged-out page. Values are sealed at rest and never answered: GET shows names and dates only.
import { z } from 'zod';
import { ActionsSchema } from './actions.js';
import { HttpUrlSchema, TimestampSchema } from './common.js';
import { FOLLOW_PATTERN_RULES, RegexSchema, SelectorSchema } from './crawl.js';

export const MAX_SESSION_COOKIES = 50;
export const MAX_SESSION_HEADERS = 20;
export const MAX_SESSION_SECRETS = 20;

// RFC 7230 token characters: a header or cookie name that cannot smuggle a separator.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
// Set by the fetcher or the browser, or meaningless per request: not for a session to override.
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'cookie',
]);

const SecretNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/)
  .meta({ description: 'A secret name: letters, digits, _ and -, at most 64.', example: 'password' });

export const SessionCookieSchema = z
  .object({
    name: z.string().regex(TOKEN).meta({ description: 'The cookie name.', example: 'sessionid' }),
    value: z
      .string()
      .max(4_096)
      .regex(/^[\t !#-:<-~]*$/, { message: 'visible ASCII without ; " or line breaks' })
      .meta({ description: 'The cookie value: sealed, never answered.', example: 'a1b2c3d4' }),
    path: z.string().startsWith('/').max(500).default('/').meta({ description: "Default '/'." }),
    http_only: z.boolean().default(true).meta({
      description: "In dynamic mode the page's scripts cannot read it (default true).",
    }),
  })
  .strict()
  .meta({ id: 'SessionCookie' });
export type SessionCookie = z.infer<typeof SessionCookieSchema>;

const LoginRecipeSchema = z
  .object({
    url: HttpUrlSchema.meta({
      description: "The login page; on the site's own origin.",
      example: 'https://shop.example.com/login',
    }),
    actions: ActionsSchema.refine((actions) => !actions.some((a) => a.kind === 'screenshot'), {
      message:
        'a login recipe takes no screenshot: the login page, where secrets are typed, is never captured',
    }).meta({
      description:
        'Page actions run on the login page (as in PageAction; no screenshot: the login page is never ' +
        'captured). A type step can take secret (a name from ' +
        'secrets) instead of text, so a password is never in a request or a job. When they have run, the ' +
        "cookies the browser holds for the site's host become the session (sealed). End with a wait for an " +
        'element only a logged-in page shows.',
      example: [
        { kind: 'type', selector: '#user', text: 'me@example.com' },
        { kind: 'type', selector: '#password', secret: 'password' },
        { kind: 'click', selector: 'button[type=submit]' },
        { kind: 'wait', selector: '#account' },
      ],
    }),
  })
  .strict()
  .meta({ id: 'LoginRecipe' });

const LoggedOutRuleSchema = z
  .object({
    selector: SelectorSchema.optional().meta({
      description: 'An element only a logged-out page has (a login form).',
      example: 'form#login',
    }),
    url_pattern: RegexSchema.optional().meta({
      description: `The page's final URL matches it when the site sent a logged-out visitor away (to its login page). ${FOLLOW_PATTERN_RULES}`,
      example: '/login',
    }),
  })
  .strict()
  .refine((r) => r.selector !== undefined || r.url_pattern !== undefined, {
    message: 'give selector, url_pattern or both',
  })
  .meta({
    // selector, url_pattern or both, each a string: a null one is absent (null means absent in every body).
    anyOf: [
      { required: ['selector'], properties: { selector: { type: 'string' } } },
      { required: ['url_pattern'], properties: { url_pattern: { type: 'string' } } },
    ],
    id: 'LoggedOutRule',
    description:
      'How a fetched page tells it was served logged out. Then the login recipe runs once (a fresh session) and the page is fetched again; without a recipe, or when it still matches, the page fails with error_category login_required.',
  });

export const SiteSessionPutSchema = z
  .object({
    cookies: z
      .array(SessionCookieSchema)
      .max(MAX_SESSION_COOKIES)
      .default([])
      .meta({
        description: `Cookies sent only to the site's origin, from its own pages (at most ${MAX_SESSION_COOKIES}).`,
      }),
    headers: z
      .record(
        z
          .string()
          .regex(TOKEN)
          .refine((n) => !RESERVED_HEADERS.has(n.toLowerCase()), { message: 'a reserved header' }),
        z
          .string()
          .max(4_096)
          .regex(/^[\t -~]*$/, { message: 'visible ASCII, no line breaks' }),
      )
      .default({})
      .refine((h) => Object.keys(h).length <= MAX_SESSION_HEADERS, {
        message: `at most ${MAX_SESSION_HEADERS} headers`,
      })
      .meta({
        description:
          "Request headers sent only to the site's origin (scheme, host, port), and in the browser only on " +
          "requests of the site's own pages (e.g. an API token).",
        example: { authorization: 'Bearer site-token' },
      }),
    secrets: z
      .record(SecretNameSchema, z.string().min(1).max(2_000))
      .default({})
      .refine((s) => Object.keys(s).length <= MAX_SESSION_SECRETS, {
        message: `at most ${MAX_SESSION_SECRETS} secrets`,
      })
      .meta({
        description:
          'Named values a type action of the login recipe types by name ({kind: "type", selector, secret: ' +
          '"password"}), only while the login page is on the site\'s origin. No other page action can type them ' +
          '(a 422). Sealed; never answered.',
        example: { password: 'correct horse battery staple' },
      }),
    login: LoginRecipeSchema.nullable().default(null),
    logged_out: LoggedOutRuleSchema.nullable().default(null),
  })
  .strict()
  .meta({
    id: 'SiteSessionRequest',
    description:
      'The whole session (PUT replaces it). Cookies, headers and secrets are sealed with SECRETS_KEY like ' +
      'provider keys; they are never in a job, its events, the debug capture or an answer.',
    example: {
      cookies: [{ name: 'sessionid', value: 'a1b2c3d4' }],
      secrets: { password: 'correct horse battery staple' },
      login: {
        url: 'https://shop.example.com/login',
        actions: [
          { kind: 'type', selector: '#user', text: 'me@example.com' },
          { kind: 'type', selector: '#password', secret: 'password' },
          { kind: 'click', selector: 'button[type=submit]' },
          { kind: 'wait', selector: '#account' },
        ],
      },
      logged_out: { selector: 'form#login' },
    },
  });
export type SiteSessionPut = z.infer<typeof SiteSessionPutSchema>;
export type LoginRecipe = z.infer<typeof LoginRecipeSchema>;
export type LoggedOutRule = z.infer<typeof LoggedOutRuleSchema>;

export const SiteSessionSchema = z
  .object({
    site_id: z.string(),
    cookie_names: z.array(z.string()).meta({ description: 'Names of the stored cookies (never values).' }),
    header_names: z.array(z.string()),
    secret_names: z.array(z.string()),
    login: z
      .object({ url: z.string(), steps: z.number().int() })
      .nullable()
      .meta({ description: "The login recipe's page and how many actions it has." }),
    logged_out: z.object({ selector: z.string().nullable(), url_pattern: z.string().nullable() }).nullable(),
    cookies_updated_at: TimestampSchema.nullable().meta({
      description: 'When the cookies were last set, by PUT or by a login.',
    }),
    last_login_at: TimestampSchema.nullable().meta({ description: 'When the login recipe last ran.' }),
    last_login_error: z.string().nullable().meta({ description: 'Why the last login failed, if it did.' }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .meta({
    id: 'SiteSession',
    description: "A site's session as the API shows it: names and dates, never a value.",
  });
export type SiteSession = z.infer<typeof SiteSessionSchema>;
