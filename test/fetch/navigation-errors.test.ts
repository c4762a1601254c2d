// Browser navigation problems in the error vocabulary: proxy refusals, timeouts, TLS, redirects, network.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  isAllowedScheme,
  navigationFailure,
  redirectRefusal,
} from '../../activities/fetching/browser/navigation-errors.js';
import { CategorizedError } from '../../shared/errors.js';

const ctx = { url: 'https://shop.example/w', timeoutMs: 1000 };
const net = (code: string) => new Error(`net::${code} at https://shop.example/w`);

test('a proxy refusal wins over the generic tunnel error Chromium reports', () => {
  const refusal = {
    category: 'ssrf_blocked' as const,
    message:
      'refused shop.example: the address policy refuses private, loopback, link-local and metadata addresses',
    host: 'shop.example',
    port: 443,
    at: Date.now(),
  };
  const err = navigationFailure(net('ERR_TUNNEL_CONNECTION_FAILED'), { ...ctx, refusal });
  assert.equal(err.category, 'ssrf_blocked');
  assert.equal(err.message, refusal.message);
  assert.equal(err.retryable, false);
});

test('timeouts', () => {
  const timeout = Object.assign(new Error('Navigation timeout of 1000 ms exceeded'), {
    name: 'TimeoutError',
  });
  assert.equal(navigationFailure(timeout, ctx).category, 'fetch_timeout');
  assert.equal(navigationFailure(net('ERR_CONNECTION_TIMED_OUT'), ctx).category, 'fetch_timeout');
});

test('TLS, redirect and resolution errors are final; connection trouble may pass', () => {
  const tls = navigationFailure(net('ERR_CERT_AUTHORITY_INVALID'), ctx);
  assert.deepEqual([tls.category, tls.retryable, tls.details?.reason], ['fetch_error', false, 'tls']);
  assert.equal(navigationFailure(net('ERR_SSL_PROTOCOL_ERROR'), ctx).details?.reason, 'tls');
  const loop = navigationFailure(net('ERR_TOO_MANY_REDIRECTS'), ctx);
  assert.deepEqual([loop.category, loop.details?.reason], ['fetch_error', 'too_many_redirects']);
  assert.equal(navigationFailure(net('ERR_NAME_NOT_RESOLVED'), ctx).retryable, false);
  const refused = navigationFailure(net('ERR_CONNECTION_REFUSED'), ctx);
  assert.deepEqual([refused.category, refused.retryable], ['fetch_error', true]);
});

test('a browser that went away is a retryable fetch_error; categorized errors pass through', () => {
  const gone = navigationFailure(new Error('Protocol error (Page.navigate): Target closed'), ctx);
  assert.deepEqual(
    [gone.category, gone.retryable, gone.details?.reason],
    ['fetch_error', true, 'browser_gone'],
  );
  const known = new CategorizedError('content_too_large', 'too big');
  assert.equal(navigationFailure(known, ctx), known);
});

test('redirects of the document: other schemes, loops and one hop too many are refused', () => {
  const a = 'https://shop.example/a';
  const b = 'https://shop.example/b';
  assert.equal(redirectRefusal(a, [], 0), null);
  assert.equal(redirectRefusal(b, [a], 1), null);
  assert.equal(redirectRefusal('file:///etc/passwd', [a], 5)?.details?.reason, 'invalid_redirect');
  assert.equal(redirectRefusal('chrome://settings', [], 5)?.details?.reason, 'invalid_redirect');
  assert.equal(redirectRefusal(`${a}#again`, [a, b], 5)?.details?.reason, 'redirect_loop');
  const tooMany = redirectRefusal('https://shop.example/c', [a, b], 1);
  assert.deepEqual(tooMany?.details, {
    reason: 'too_many_redirects',
    redirects: [b, 'https://shop.example/c'],
  });
  assert.ok(isAllowedScheme('data:text/html,hi') && isAllowedScheme('blob:https://x/1'));
  assert.ok(!isAllowedScheme('file:///etc/passwd') && !isAllowedScheme('chrome-extension://x/'));
});
