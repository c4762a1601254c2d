// Static mode's own checks on top of the guarded dispatcher: types refused from the headers (before the
// body is downloaded), untyped bodies sniffed, charsets honoured, and TLS failures named as such.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { fetchStatic } from '../../activities/fetching/fetch-static.js';
import { CategorizedError } from '../../shared/errors.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';

const OPTS = { timeoutMs: 2000, maxBytes: 64 * 1024, maxRedirects: 3, policy: { allowPrivate: true } };
let site: FixtureSite;
let streamClosed: Promise<number> = Promise.resolve(0);

before(async () => {
  site = await startFixtureSite();
  site.route('/big.pdf', (_req, res) => {
    // Endless: only refusing it from its headers ends the request early.
    res.writeHead(200, { 'content-type': 'application/pdf' });
    let sent = 0;
    streamClosed = new Promise((resolve) => res.on('close', () => resolve(sent)));
    const pump = () => {
      while (!res.destroyed && res.write(Buffer.alloc(16 * 1024))) sent += 16 * 1024;
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  });
  site.route('/png', (_req, res) => res.writeHead(200).end(Buffer.from('89504e470d0a1a0a0000', 'hex')));
  site.route('/untyped', (_req, res) => res.writeHead(200).end('<p>no content-type</p>'));
  site.route('/latin1', (_req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' })
      .end(Buffer.from('<p>caf\xe9</p>', 'latin1')),
  );
  site.route('/json-error', (_req, res) =>
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}'),
  );
});
after(() => site.close());

const category = (name: string, reason?: string) => (err: unknown) => {
  assert.ok(err instanceof CategorizedError, String(err));
  assert.equal(err.category, name, err.message);
  if (reason) assert.equal(err.details?.reason, reason);
  return true;
};

test('a non-document type is refused from its headers, without reading the body', async () => {
  await assert.rejects(fetchStatic(`${site.url}/big.pdf`, OPTS), category('unsupported_content'));
  const sent = await streamClosed;
  assert.ok(sent < 4 * 1024 * 1024, `the server sent ${sent} bytes`);
});

test('an untyped body is sniffed: binary signatures are refused, text is read as HTML', async () => {
  await assert.rejects(fetchStatic(`${site.url}/png`, OPTS), category('unsupported_content'));
  const doc = await fetchStatic(`${site.url}/untyped`, OPTS);
  assert.equal(doc.contentType, 'text/html');
  assert.equal(doc.body, '<p>no content-type</p>');
});

test('the charset of the header is honoured', async () => {
  const doc = await fetchStatic(`${site.url}/latin1`, OPTS);
  assert.equal(doc.body, '<p>café</p>');
});

test('an error status of any type is returned for the caller to report', async () => {
  const doc = await fetchStatic(`${site.url}/json-error`, OPTS);
  assert.deepEqual([doc.status, doc.contentType], [404, 'application/json']);
});

test('a TLS failure is a non-retryable fetch_error with reason tls', async () => {
  // Speaks plain HTTP where TLS is expected: the handshake fails without needing a certificate.
  const server = net.createServer((socket) =>
    socket.on('data', () => socket.end('HTTP/1.1 200 OK\r\n\r\nhi')),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  try {
    await assert.rejects(
      fetchStatic(`https://127.0.0.1:${port}/`, OPTS),
      (err: unknown) => category('fetch_error', 'tls')(err) && !(err as CategorizedError).retryable,
    );
  } finally {
    server.close();
  }
});
