// Bot walls and captchas are recognised; ordinary pages that merely carry a marker are not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectBotWall } from '../../activities/fetching/browser/bot-wall.js';
import { scanPage } from '../../activities/reading/page-signals.js';

const wall = (html: string, status = 200, headers: Record<string, string> = {}) =>
  detectBotWall({ status, headers, signals: scanPage(html) });
const article = `<article>${'<p>Plenty of ordinary article text for a reader to enjoy here.</p>'.repeat(60)}</article>`;

test('Cloudflare interstitials', () => {
  assert.equal(
    wall('<html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>', 503),
    'Cloudflare challenge',
  );
  assert.equal(wall('<title>Just a moment…</title>'), 'Cloudflare challenge');
  assert.equal(
    wall('<title>Attention Required! | Cloudflare</title><h1>Sorry, you have been blocked</h1>', 403),
    'Cloudflare challenge',
  );
  assert.equal(wall('<p>x</p>', 403, { 'cf-mitigated': 'challenge' }), 'Cloudflare challenge');
  assert.equal(
    wall('<form id="challenge-form" action="/?__cf_chl_f_tk=abc"><input type="hidden"></form>', 403),
    'Cloudflare challenge',
  );
});

test('captcha pages', () => {
  assert.equal(
    wall('<h1>One more step</h1><iframe src="https://www.google.com/recaptcha/api2/anchor?k=1"></iframe>'),
    'captcha',
  );
  assert.equal(wall('<div class="h-captcha" data-sitekey="x"></div>'), 'captcha');
  assert.equal(wall('<iframe src="https://geo.captcha-delivery.com/captcha/?x=1"></iframe>', 403), 'captcha');
  assert.equal(
    wall('<div id="px-captcha"></div><p>Press &amp; Hold to confirm you are a human</p>'),
    'PerimeterX captcha',
  );
  assert.equal(
    wall('<p>Our systems have detected unusual traffic from your computer network.</p>', 429),
    'bot check',
  );
});

test('other vendors and access-denied statuses', () => {
  assert.equal(
    wall('<script src="/_Incapsula_Resource?SWJIYLWA=1"></script><p>Request unsuccessful.</p>'),
    'Imperva/Incapsula block',
  );
  assert.equal(
    wall('<title>Access Denied</title><h1>Access Denied</h1><p>Reference #18.abc</p>', 403),
    'access denied page',
  );
  assert.equal(wall('<title>Sucuri WebSite Firewall - Access Denied</title>', 403), 'Sucuri firewall block');
});

test('ordinary pages are not walls', () => {
  assert.equal(wall(`<title>Blue Widget</title>${article}`), null);
  // A long page with Cloudflare's bot-management script, and a contact form with a reCAPTCHA widget.
  assert.equal(
    wall(`<script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script>${article}`),
    null,
  );
  assert.equal(wall(`${article}<form><div class="g-recaptcha"></div></form>`), null);
  // An ordinary 404 and an ordinary 403 are http_status matters, not walls.
  assert.equal(wall('<title>Not found</title><h1>Not found</h1>', 404), null);
  assert.equal(wall('<title>Forbidden</title><p>You do not have access to this resource.</p>', 403), null);
});
