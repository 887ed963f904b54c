// The outbound address guard: which IP addresses a webhook (or any server-side fetch) may reach.
// Blocks every block of the IANA IPv4 and IPv6 special-purpose address registries plus everything
// outside IPv6 global unicast (2000::/3). Pure except `resolveAndCheck`, which does one DNS lookup.
import dns from 'node:dns';
import { isIP } from 'node:net';

export interface UrlIssue {
  key: string;
  code: string;
  message: string;
}

export type CheckedAddress = { address: string; family: 4 | 6 };
export type BlockedAddress = { blocked: string; address: string };

interface Rule {
  net: bigint;
  mask: bigint;
  bits: number;
  reason: string;
}

const V4_BLOCKS: Array<[string, string]> = [
  ['0.0.0.0/8', 'unspecified'], // "this network"; 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'], // includes cloud metadata 169.254.169.254
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments
  ['192.0.2.0/24', 'documentation'],
  ['192.31.196.0/24', 'as112'],
  ['192.52.193.0/24', 'amt'],
  ['192.88.99.0/24', '6to4'], // deprecated 6to4 relay anycast
  ['192.168.0.0/16', 'private'],
  ['192.175.48.0/24', 'as112'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'broadcast'],
];

// IPv4-mapped (::ffff:0:0/96) and IPv4-compatible (::/96) are handled before these rules.
const V6_BLOCKS: Array<[string, string]> = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b::/96', 'nat64'],
  ['64:ff9b:1::/48', 'nat64'],
  ['100::/64', 'discard'],
  ['2001::/23', 'reserved'], // IETF protocol assignments (PCP, TURN, AMT, AS112, ORCHID, DRIP)
  ['2001::/32', 'teredo'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['2620:4f:8000::/48', 'as112'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'srv6'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

const V4_RULES = buildRules(V4_BLOCKS, 32);
const V6_RULES = buildRules(V6_BLOCKS, 128);
const V6_GLOBAL_UNICAST = buildRules([['2000::/3', 'global']], 128)[0]!;
const LOW_32 = 0xffff_ffffn;

/** Null when `ip` may be reached; otherwise a short reason (`loopback`, `private`, …). Non-IPs are `invalid`. */
export function classifyAddress(ip: string): string | null {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const addr = bare.split('%')[0]!; // a zone id never makes an address public
  const family = isIP(addr);
  if (family === 4) return matchRule(V4_RULES, parseV4(addr));
  if (family !== 6) return 'invalid';
  const n = parseV6(addr);
  const high96 = n >> 32n;
  // Embedded IPv4 forms are always blocked (stacks disagree on how they are routed); report the
  // embedded address's own reason when it has one, as that is what the caller needs to see.
  if (high96 === 0xffffn) return matchRule(V4_RULES, n & LOW_32) ?? 'ipv4-mapped';
  if (high96 === 0n && n > 1n) return matchRule(V4_RULES, n & LOW_32) ?? 'ipv4-compatible';
  const reason = matchRule(V6_RULES, n);
  if (reason) return reason;
  return (n & V6_GLOBAL_UNICAST.mask) === V6_GLOBAL_UNICAST.net ? null : 'non-global-unicast';
}

/** The canonical IP of a `URL#hostname` that is an IP literal (brackets stripped), else null. */
export function parseHostLiteral(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const family = isIP(bare);
  if (family === 4) return bare;
  if (family === 6 && !bare.includes('%')) return formatV6(parseV6(bare));
  return null;
}

/** Create-time checks of a webhook URL; hostnames are not resolved here (see resolveAndCheck). */
export function checkWebhookUrl(url: string, opts: { allowHttp: boolean; allowPrivate: boolean }): UrlIssue[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [{ key: 'url', code: 'format', message: 'url must be an absolute http(s) URL' }];
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return [{ key: 'url', code: 'format', message: 'url must use https (or http where allowed)' }];
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return [{ key: 'url', code: 'format', message: 'url must not contain credentials' }];
  }
  const issues: UrlIssue[] = [];
  if (parsed.protocol === 'http:' && !opts.allowHttp) {
    issues.push({ key: 'url', code: 'scheme', message: 'url must use https; http is not enabled on this deployment' });
  }
  const literal = parseHostLiteral(parsed.hostname);
  const reason = literal === null || opts.allowPrivate ? null : classifyAddress(literal);
  if (reason !== null) {
    issues.push({ key: 'url', code: 'address', message: `url points at a ${reason} address (${literal}), which is not allowed` });
  }
  return issues;
}

/** Resolve `hostname` once and check every address; the caller must connect to the returned address. */
export async function resolveAndCheck(hostname: string, opts: { allowPrivate: boolean }): Promise<CheckedAddress | BlockedAddress> {
  const literal = parseHostLiteral(hostname);
  if (literal !== null) {
    const reason = opts.allowPrivate ? null : classifyAddress(literal);
    if (reason !== null) return { blocked: reason, address: literal };
    return { address: literal, family: isIP(literal) === 6 ? 6 : 4 };
  }
  const addresses = await lookupAll(hostname);
  if (addresses.length === 0) throw new Error(`no addresses found for ${hostname}`);
  if (!opts.allowPrivate) {
    for (const a of addresses) {
      const reason = classifyAddress(a.address);
      if (reason !== null) return { blocked: reason, address: a.address };
    }
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

// Callback form through the module object, so tests can observe the single lookup.
function lookupAll(hostname: string): Promise<dns.LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dns.lookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });
}

function matchRule(rules: Rule[], n: bigint): string | null {
  for (const r of rules) if ((n & r.mask) === r.net) return r.reason;
  return null;
}

// Longest prefix first, so the most specific block names the reason.
function buildRules(blocks: Array<[string, string]>, width: number): Rule[] {
  const all = (1n << BigInt(width)) - 1n;
  return blocks
    .map(([cidr, reason]) => {
      const [ip, len] = cidr.split('/') as [string, string];
      const bits = Number(len);
      const mask = (all << BigInt(width - bits)) & all;
      const net = (width === 32 ? parseV4(ip) : parseV6(ip)) & mask;
      return { net, mask, bits, reason };
    })
    .sort((a, b) => b.bits - a.bits);
}

function parseV4(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

// Expects an address that net.isIP accepted as IPv6 (zone id removed).
function parseV6(ip: string): bigint {
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseV4(tail);
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const fill = rest === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].reduce((acc, h) => (acc << 16n) | BigInt(parseInt(h, 16)), 0n);
}

// RFC 5952 / WHATWG form: lowercase, no leading zeros, first longest run (≥ 2) of zero groups as `::`.
function formatV6(n: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(16 * (7 - i))) & 0xffffn));
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [bestStart, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}
