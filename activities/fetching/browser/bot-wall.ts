// Recognises bot walls and captcha interstitials, so a challenge page fails as `blocked` instead of being
// extracted as if it were the page. Markers alone are not enough on a long page (Cloudflare injects its
// challenge-platform script into ordinary pages too), so most rules also need a short page or an error status.
import type { PageSignals } from '../../reading/page-signals.js';

export interface BotWallInput {
  status: number;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  signals: PageSignals;
}

interface Rule {
  name: string;
  /** Conclusive on its own, whatever the page's size and status. */
  conclusive?: boolean;
  /** Longest visible text a page may have for the rule to apply without an error status. */
  maxText?: number;
  test: (input: BotWallInput) => boolean;
}

/** Challenge pages are short; a page with more text than this is content that happens to carry a marker. */
const SHORT_PAGE = 2_000;
const CAPTCHA_PAGE = 600;
const CHALLENGE_STATUSES = new Set([403, 429, 503]);

const CAPTCHA_FRAME =
  /recaptcha|hcaptcha\.com|challenges\.cloudflare\.com|turnstile|arkoselabs|funcaptcha|captcha-delivery\.com/i;
const CHALLENGE_TEXT =
  /verify(ing)? (that )?you are (a )?human|are you a robot|not a robot|unusual traffic from your computer|checking (if the site connection is secure|your browser before accessing)|enable javascript and cookies to continue|press (&|and) hold|complete the security check|request unsuccessful\. incapsula incident/i;

const RULES: Rule[] = [
  {
    name: 'Cloudflare challenge',
    conclusive: true,
    test: ({ headers }) => /challenge/i.test(headers['cf-mitigated'] ?? ''),
  },
  {
    name: 'Cloudflare challenge',
    conclusive: true,
    test: ({ signals }) => /^(just a moment|attention required!? \| cloudflare)/i.test(signals.title),
  },
  {
    name: 'Cloudflare challenge',
    test: ({ signals }) =>
      /challenge-form|cf-challenge|cf_chl_|cf-browser-verification|challenge-platform/.test(signals.markers),
  },
  { name: 'Imperva/Incapsula block', test: ({ signals }) => /_incapsula_resource/.test(signals.markers) },
  { name: 'PerimeterX captcha', test: ({ signals }) => /px-captcha/.test(signals.markers) },
  { name: 'AWS WAF challenge', test: ({ signals }) => /awswaf|aws-waf-token/.test(signals.markers) },
  {
    name: 'Sucuri firewall block',
    conclusive: true,
    test: ({ signals }) => /sucuri website firewall/i.test(signals.title),
  },
  // A captcha widget also sits in ordinary contact and login forms: only a page with little else is a wall.
  {
    name: 'captcha',
    maxText: CAPTCHA_PAGE,
    test: ({ signals }) => signals.iframeSrcs.some((src) => CAPTCHA_FRAME.test(src)),
  },
  {
    name: 'captcha',
    maxText: CAPTCHA_PAGE,
    test: ({ signals }) => /g-recaptcha|h-captcha|cf-turnstile/.test(signals.markers),
  },
  { name: 'bot check', test: ({ signals }) => CHALLENGE_TEXT.test(`${signals.title} ${signals.text}`) },
  {
    name: 'access denied page',
    test: ({ status, signals }) =>
      CHALLENGE_STATUSES.has(status) &&
      /^(access denied|pardon our interruption|you have been blocked|request blocked)/i.test(signals.title),
  },
];

/** The kind of wall the page is, or null for an ordinary page. */
export function detectBotWall(input: BotWallInput): string | null {
  const errorStatus = CHALLENGE_STATUSES.has(input.status);
  for (const rule of RULES) {
    const applies = rule.conclusive || errorStatus || input.signals.textLength < (rule.maxText ?? SHORT_PAGE);
    if (applies && rule.test(input)) return rule.name;
  }
  return null;
}
