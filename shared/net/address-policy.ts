// Which URLs and network addresses the service may reach. Everything here is pure except resolveAndCheck,
// which resolves names; the guarded dispatcher applies the same checks to the address it actually connects to.
import { promises as dns, type LookupAddress } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { CategorizedError } from '../errors.js';

export interface AddressPolicy {
  /**
   * Allow loopback, private and other non-public destinations (local development only). Link-local and
   * cloud metadata addresses stay refused whatever this says (isAlwaysRefused).
   */
  allowPrivate: boolean;
  /**
   * Replaces isPublicAddress as the test for each resolved or literal address when allowPrivate is false.
   * Meant for allow-lists and for tests that let a 127.0.0.1 server stand in for a public host.
   */
  isAllowed?: (address: string) => boolean;
}

/** Resolves a hostname to every address it has, as dns.lookup(host, { all: true }) does. */
export type LookupFn = (hostname: string) => Promise<LookupAddress[]>;

export const defaultLookup: LookupFn = (hostname) => dns.lookup(hostname, { all: true });

/**
 * True only for globally routable unicast addresses. Anything else, including strings that are not a
 * canonical IP address, is refused: failing closed is the point.
 */
export function isPublicAddress(ip: string): boolean {
  // net.isIP accepts only canonical forms; lenient IPv4 spellings ('127.1', '0x7f.1') are refused here and
  // normalised earlier by the URL parser or literalAddress().
  if (net.isIP(ip) === 0) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(ip);
  } catch {
    return false;
  }
  return parsed.kind() === 'ipv4' ? isPublicIpv4(parsed as ipaddr.IPv4) : isPublicIpv6(parsed as ipaddr.IPv6);
}

function isPublicIpv4(addr: ipaddr.IPv4): boolean {
  return addr.range() === 'unicast';
}

function isPublicIpv6(addr: ipaddr.IPv6): boolean {
  const range = addr.range();
  // Ranges that carry an IPv4 address reach that IPv4 host, so the embedded address decides.
  const embedded = embeddedIpv4(addr, range);
  if (embedded !== undefined) return embedded !== null && isPublicIpv4(embedded);
  return range === 'unicast';
}

/**
 * The IPv4 address an IPv6 address tunnels or translates to: undefined when it embeds none, null when we
 * cannot tell which one it reaches, which both checks refuse. Teredo carries two (the relay's and the
 * client's); neither is treated as public, and either one refused refuses the address (teredoIpv4s).
 */
function embeddedIpv4(addr: ipaddr.IPv6, range: string): ipaddr.IPv4 | null | undefined {
  const p = addr.parts;
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d (IPv4-translated)
      return v4(p[6]!, p[7]!);
    case 'rfc6052':
      // 64:ff9b::a.b.c.d is well-known NAT64. Local-use NAT64 (64:ff9b:1::/48) puts the IPv4 address at a
      // place its operator chose (RFC 6052's prefix lengths), so which host it reaches cannot be told.
      return p[1] === 0xff9b && p.slice(2, 6).every((part) => part === 0) ? v4(p[6]!, p[7]!) : null;
    case '6to4': // 2002:aabb:ccdd::/48
      return v4(p[1]!, p[2]!);
    case 'teredo':
      return null;
    case 'unicast':
      // Deprecated IPv4-compatible form ::a.b.c.d; some stacks still route it to the IPv4 host.
      return p.slice(0, 6).every((part) => part === 0) ? v4(p[6]!, p[7]!) : undefined;
    default:
      return undefined;
  }
}

const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);

/** Teredo (2001::/32): the relay's IPv4 in bits 32-63, the client's inverted in the last 32 bits. */
function teredoIpv4s(addr: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = addr.parts;
  return [v4(p[2]!, p[3]!), v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff)];
}

/**
 * The one refusal message: it names the policy, never the address a name resolved to, so a refusal cannot
 * be used to map the service's internal DNS.
 */
export const POLICY_REFUSAL =
  'the address policy refuses private, loopback, link-local and metadata addresses';

/** Names of cloud metadata services (lower case, no trailing dot), refused before any lookup. */
const METADATA_HOSTNAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
]);
// Metadata services outside the link-local ranges: Alibaba Cloud, Oracle Cloud (legacy), AWS over IPv6
// (fd00:ec2::254 and its siblings for DNS and NTP).
const METADATA_V4 = ['100.100.100.200/32', '192.0.0.192/32'].map((c) => ipaddr.IPv4.parseCIDR(c));
const METADATA_V6 = ['fd00:ec2::/32'].map((c) => ipaddr.IPv6.parseCIDR(c));

export function isMetadataHostname(hostname: string): boolean {
  return METADATA_HOSTNAMES.has(hostname.toLowerCase().replace(/\.$/, ''));
}

/**
 * Link-local (169.254.0.0/16, fe80::/10) and cloud metadata addresses, also when embedded in an IPv6 form:
 * refused even with allowPrivate, which is for reaching local test servers, never the metadata service.
 * Strings that are not an address are refused too.
 */
export function isAlwaysRefused(ip: string): boolean {
  if (net.isIP(ip) === 0) return true;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(ip);
  } catch {
    return true;
  }
  if (parsed.kind() === 'ipv4') return isRefusedIpv4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  // An embedded IPv4 address is refused like itself, also with allowPrivate.
  if (range === 'teredo') return teredoIpv4s(v6).some(isRefusedIpv4);
  const embedded = embeddedIpv4(v6, range);
  if (embedded === null) return true;
  if (embedded) return isRefusedIpv4(embedded);
  return range === 'linkLocal' || METADATA_V6.some((cidr) => v6.match(cidr));
}

function isRefusedIpv4(addr: ipaddr.IPv4): boolean {
  return addr.range() === 'linkLocal' || METADATA_V4.some((cidr) => addr.match(cidr));
}

/** Whether the policy lets the service connect to this address. */
export function isAddressAllowed(address: string, policy: AddressPolicy): boolean {
  if (isAlwaysRefused(address)) return false;
  if (policy.allowPrivate) return true;
  return (policy.isAllowed ?? isPublicAddress)(address);
}

/**
 * The request-time check of a host a caller names (webhook URL, model base_url). Without allowPrivate the
 * name is resolved and every address checked (resolveAndCheck); with it only what needs no lookup is
 * checked (metadata names, refused literals), as names on a development machine need not resolve. Either
 * way the connect-time checks run again on every request.
 */
export async function checkCallerHost(hostname: string, policy: AddressPolicy): Promise<void> {
  if (!policy.allowPrivate) {
    await resolveAndCheck(hostname, policy);
    return;
  }
  const literal = literalAddress(hostname);
  const refused = literal === null ? isMetadataHostname(hostname) : !isAddressAllowed(literal, policy);
  if (refused) throw ssrfRefusal(hostname);
}

/** Parses a URL the service is asked to fetch; only plain http(s) without credentials is accepted. */
export function checkUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CategorizedError('invalid_input', `not a valid URL: ${truncate(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CategorizedError(
      'invalid_input',
      `only http and https URLs can be fetched, not ${url.protocol}`,
    );
  }
  // Credentials in a URL leak into logs and redirects, and are a classic way to disguise the real host.
  if (url.username !== '' || url.password !== '') {
    throw new CategorizedError('invalid_input', 'URLs with credentials (user:password@) are not accepted');
  }
  return url;
}

/**
 * The canonical address a hostname spells, or null for a name that needs DNS. Accepts URL hostnames
 * ('[::1]') and, for callers that did not go through new URL(), the lenient IPv4 spellings ('127.1',
 * '0x7f.1', '2130706433') that inet_aton and the WHATWG URL parser both read as addresses.
 */
export function literalAddress(hostname: string): string | null {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (net.isIP(host) !== 0) return host;
  if (ipaddr.IPv4.isValid(host)) return ipaddr.IPv4.parse(host).toString();
  return null;
}

export function hostIsIpLiteral(hostname: string): boolean {
  return literalAddress(hostname) !== null;
}

/**
 * Resolves a hostname (IP literals are taken as they are, without a lookup) and refuses it when any of its
 * addresses is not allowed: checking only the first would let a name with one public and one private
 * record slip through on whichever address the connection happens to use.
 */
export async function resolveAndCheck(
  hostname: string,
  policy: AddressPolicy,
  lookupFn: LookupFn = defaultLookup,
): Promise<LookupAddress[]> {
  const literal = literalAddress(hostname);
  if (literal !== null) {
    if (!isAddressAllowed(literal, policy)) throw ssrfRefusal(hostname);
    return [{ address: literal, family: net.isIP(literal) }];
  }
  if (isMetadataHostname(hostname)) throw ssrfRefusal(hostname);
  const addresses = await lookupFn(hostname);
  if (addresses.length === 0) {
    throw Object.assign(new Error(`no addresses for ${hostname}`), { code: 'ENOTFOUND', hostname });
  }
  if (addresses.some((a) => !isAddressAllowed(a.address, policy))) throw ssrfRefusal(hostname);
  return addresses;
}

/**
 * The refusal of a host: its message and details name the host the caller gave and the policy, never an
 * address it resolved or connected to (error messages reach callers, workflow history and logs).
 */
export function ssrfRefusal(host: string): CategorizedError {
  return new CategorizedError('ssrf_blocked', `refused ${host}: ${POLICY_REFUSAL}`, false, {
    host,
    reason: 'address_policy',
  });
}

function truncate(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
