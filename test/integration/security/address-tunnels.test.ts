// IPv6 forms that carry an IPv4 address (NAT64, Teredo, 6to4, IPv4-mapped and -compatible) are judged by
// the IPv4 address they reach, also with ALLOW_PRIVATE_ADDRESSES=true: one embedding a link-local or metadata
// address is refused like that address. Local-use NAT64 (64:ff9b:1::/48) is always refused: its operator
// chooses where the IPv4 address sits, so which host it reaches cannot be told. Unit checks, then the
// service (private addresses allowed, as in every test) refusing such pages and model endpoints.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkCallerHost, isAddressAllowed, resolveAndCheck } from '../../../shared/net/address-policy.js';
import { startTestService, type TestService } from '../../support/service.js';

const LOCAL = { allowPrivate: true };
const PUBLIC_ONLY = { allowPrivate: false };

// Each embeds 169.254.169.254 (a9fe:a9fe) or another link-local / metadata IPv4 address.
const TUNNELLED_METADATA = [
  '64:ff9b::a9fe:a9fe', // well-known NAT64
  '64:ff9b::169.254.169.254',
  '64:ff9b:1::a9fe:a9fe', // local-use NAT64, /96 placement
  '64:ff9b:1:a9fe:a9:fe00::', // local-use NAT64, /48 placement (u-octet skipped)
  '2001:0:4136:e378:8000:63bf:5601:5601', // Teredo, client 169.254.169.254 (inverted)
  '2001:0:a9fe:a9fe::1', // Teredo, relay 169.254.169.254
  '2001::5601:5601',
  '2002:a9fe:a9fe::1', // 6to4
  '2002:6464:64c8::', // 6to4 of 100.100.100.200 (Alibaba metadata)
  '::ffff:a9fe:a9fe', // IPv4-mapped
  '::ffff:0:a9fe:a9fe', // IPv4-translated
  '::a9fe:a9fe', // IPv4-compatible
];

describe('tunnelled and translated IPv4 addresses', () => {
  test('one embedding a link-local or metadata address is refused with private addresses allowed', () => {
    for (const ip of TUNNELLED_METADATA) {
      assert.equal(isAddressAllowed(ip, LOCAL), false, `${ip} allowed with ALLOW_PRIVATE_ADDRESSES`);
      assert.equal(isAddressAllowed(ip, PUBLIC_ONLY), false, ip);
    }
  });

  test('local-use NAT64 is refused whatever it embeds; Teredo and 6to4 of a private address follow that address', () => {
    for (const ip of ['64:ff9b:1::7f00:1', '64:ff9b:1::808:808'])
      assert.equal(isAddressAllowed(ip, LOCAL), false, ip);
    // Teredo to relay 192.0.2.1, client 10.0.0.1 (inverted: f5ff:fffe): allowed like 10.0.0.1 in development.
    assert.equal(isAddressAllowed('2001:0:c000:201::f5ff:fffe', LOCAL), true);
    assert.equal(isAddressAllowed('2002:a00:1::1', LOCAL), true); // 6to4 of 10.0.0.1
    // Without private addresses none of them is public.
    for (const ip of ['2001:0:c000:201::f5ff:fffe', '2002:a00:1::1', '64:ff9b:1::808:808'])
      assert.equal(isAddressAllowed(ip, PUBLIC_ONLY), false, ip);
    assert.equal(
      isAddressAllowed('64:ff9b::808:808', PUBLIC_ONLY),
      true,
      'well-known NAT64 of a public address',
    );
  });

  test('URL literals of them are refused before any lookup', async () => {
    const noLookup = async () => {
      throw new Error('no lookup expected');
    };
    for (const ip of TUNNELLED_METADATA) {
      await assert.rejects(resolveAndCheck(`[${ip}]`, LOCAL, noLookup), /address policy/, ip);
      await assert.rejects(checkCallerHost(`[${ip}]`, LOCAL), /address policy/, ip);
    }
  });
});

describe('the service with private addresses allowed', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
    assert.equal(svc.config.ALLOW_PRIVATE_ADDRESSES, true);
  });
  after(async () => svc?.close());

  const extract = (body: Record<string, unknown>) =>
    svc.app.inject({
      method: 'POST',
      url: '/api/v1/extract',
      headers: svc.auth(),
      payload: { schema: { title: 'string' }, fetch_mode: 'static', ...body },
    });

  test('a page on a NAT64 or Teredo literal of the metadata address is ssrf_blocked', async () => {
    for (const ip of ['64:ff9b:1::a9fe:a9fe', '2001:0:4136:e378:8000:63bf:5601:5601']) {
      const res = await extract({ url: `http://[${ip}]/latest/meta-data/` });
      assert.equal(res.statusCode, 422, `${ip}: ${res.body.slice(0, 300)}`);
      assert.equal(res.json().error_category, 'ssrf_blocked', ip);
      assert.match(res.body, /address policy/);
    }
  });

  test('a model base_url on them is refused at request time', async () => {
    for (const ip of ['64:ff9b:1::a9fe:a9fe', '2001::5601:5601']) {
      const res = await extract({
        url: 'http://127.0.0.1:9/',
        llm_config: {
          provider: 'openai',
          model: 'gpt-4o-mini',
          api_key: 'sk-x',
          base_url: `http://[${ip}]/v1`,
        },
      });
      assert.equal(res.statusCode, 422, `${ip}: ${res.body.slice(0, 300)}`);
      assert.equal(res.json().errors[0].location, 'body.llm_config.base_url');
    }
  });
});
