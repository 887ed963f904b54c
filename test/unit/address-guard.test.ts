import dns from 'node:dns';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mapsTo } from '../support/cases.ts';
import { checkWebhookUrl, classifyAddress, parseHostLiteral, resolveAndCheck } from '../../src/domain/net/address-guard.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

// One row per block of the IANA special-purpose registries: an address inside the block.
const blocked: Array<[string, string]> = [
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['10.1.2.3', 'private'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'link-local'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.0.0.9', 'reserved'],
  ['192.0.2.10', 'documentation'],
  ['192.31.196.1', 'as112'],
  ['192.52.193.1', 'amt'],
  ['192.88.99.1', '6to4'],
  ['192.168.1.1', 'private'],
  ['192.175.48.1', 'as112'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.7', 'documentation'],
  ['224.0.0.251', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:a9fe:a9fe', 'link-local'],
  ['::ffff:8.8.8.8', 'ipv4-mapped'],
  ['::8.8.8.8', 'ipv4-compatible'],
  ['::127.0.0.1', 'loopback'],
  ['64:ff9b::8.8.8.8', 'nat64'],
  ['64:ff9b:1::1', 'nat64'],
  ['100::1', 'discard'],
  ['2001::1', 'teredo'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ['2001:1::1', 'reserved'],
  ['2001:2::1', 'benchmarking'],
  ['2001:3::1', 'reserved'],
  ['2001:4:112::1', 'reserved'],
  ['2001:1ff:ffff::1', 'reserved'],
  ['2001:db8::1', 'documentation'],
  ['2002:7f00:1::1', '6to4'],
  ['2620:4f:8000::1', 'as112'],
  ['3fff::1', 'documentation'],
  ['3fff:fff:ffff::1', 'documentation'],
  ['5f00::1', 'srv6'],
  ['fc00::1', 'unique-local'],
  ['fd00::1', 'unique-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['::2', 'unspecified'],
  ['1::1', 'non-global-unicast'],
  ['4000::1', 'non-global-unicast'],
  ['e000::1', 'non-global-unicast'],
  ['[::1]', 'loopback'],
  ['not-an-ip', 'invalid'],
  ['127.1', 'invalid'],
];

// Public controls and addresses just outside a block's edge (catch wrong prefix lengths).
const allowed = [
  '8.8.8.8',
  '1.1.1.1',
  '1.0.0.0',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.0.1.1',
  '192.0.3.0',
  '192.167.255.255',
  '192.169.0.0',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2001:200::1',
  '2001:db7:ffff::1',
  '2001:db9::1',
  '2003::1',
  '2620:4f:7fff::1',
  '3fff:1000::1',
  '3ffe::1',
];

describe('classifyAddress', () => {
  it.each(blocked)('%s is blocked as %s', (ip, reason) => {
    expect(classifyAddress(ip)).toBe(reason);
  });

  it.each(allowed)('%s is allowed', (ip) => {
    expect(classifyAddress(ip)).toBeNull();
  });

  it('blocks every IPv4-mapped address and reports the embedded reason', () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const mapped = classifyAddress(`::ffff:${v4}`);
        expect(mapped).toBe(classifyAddress(v4) ?? 'ipv4-mapped');
      }),
    );
  });

  it('blocks everything outside 2000::/3', () => {
    fc.assert(
      fc.property(fc.ipV6(), (v6) => {
        const first = parseInt(parseHostLiteral(`[${v6}]`)!.split(':')[0] || '0', 16);
        const inGlobal = first >= 0x2000 && first <= 0x3fff;
        if (!inGlobal) expect(classifyAddress(v6)).not.toBeNull();
      }),
    );
  });
});

describe('parseHostLiteral', () => {
  // Spellings go through `new URL` exactly as the guard receives them.
  mapsTo('%s → %s', (url) => parseHostLiteral(new URL(url).hostname), [
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://127.0.0.1./', '127.0.0.1'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1'],
    ['http://[::1]:8080/', '::1'],
    ['http://[0:0:0:0:0:0:0:1]/', '::1'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254'],
    ['http://100.64.0.1/', '100.64.0.1'],
    ['http://0.0.0.0/', '0.0.0.0'],
    ['http://[fe80::1]/', 'fe80::1'],
    ['http://[fd00::1]/', 'fd00::1'],
    ['https://[2606:4700:4700::1111]/', '2606:4700:4700::1111'],
    ['https://example.com/', null],
    ['https://localhost/', null],
    ['https://127.0.0.1.nip.io/', null],
  ]);

  mapsTo('raw %s → %s', parseHostLiteral, [
    ['[0:0:0:0:0:0:0:1]', '::1'],
    ['[2001:DB8:0:0:1:0:0:1]', '2001:db8::1:0:0:1'],
    ['[1:0:0:2:0:0:0:3]', '1:0:0:2::3'],
    ['[1:0:2:3:4:5:6:7]', '1:0:2:3:4:5:6:7'],
    ['[::ffff:10.0.0.1]', '::ffff:a00:1'],
    ['10.0.0.1', '10.0.0.1'],
    ['[10.0.0.1]', '10.0.0.1'],
    ['fe80::1%eth0', null],
    ['example.com', null],
    ['', null],
  ]);

  it('agrees with the WHATWG serialiser on random IPv6 addresses', () => {
    fc.assert(
      fc.property(fc.ipV6(), (v6) => {
        const viaUrl = new URL(`http://[${v6}]/`).hostname.slice(1, -1);
        expect(parseHostLiteral(v6)).toBe(viaUrl);
      }),
    );
  });
});

describe('checkWebhookUrl', () => {
  const strict = { allowHttp: false, allowPrivate: false };
  const lax = { allowHttp: true, allowPrivate: true };

  it.each([
    ['https://hooks.example.com/x', strict, []],
    ['https://8.8.8.8/hook', strict, []],
    ['https://[2606:4700:4700::1111]/hook', strict, []],
    ['https://localhost/hook', strict, []], // names are checked at delivery time
    ['http://hooks.example.com/x', strict, ['scheme']],
    ['http://hooks.example.com/x', { allowHttp: true, allowPrivate: false }, []],
    ['not a url', strict, ['format']],
    ['/relative/path', strict, ['format']],
    ['ftp://example.com/x', strict, ['format']],
    ['javascript:alert(1)', strict, ['format']],
    ['https://user:pw@example.com/x', strict, ['format']],
    ['https://user@example.com/x', strict, ['format']],
    ['https://127.0.0.1/x', strict, ['address']],
    ['https://2130706433/x', strict, ['address']],
    ['https://0x7f.1/x', strict, ['address']],
    ['https://0177.0.0.1/x', strict, ['address']],
    ['https://127.1/x', strict, ['address']],
    ['https://[::ffff:127.0.0.1]/x', strict, ['address']],
    ['https://[::ffff:7f00:1]/x', strict, ['address']],
    ['https://[::1]/x', strict, ['address']],
    ['https://169.254.169.254/x', strict, ['address']],
    ['https://100.64.0.1/x', strict, ['address']],
    ['https://0.0.0.0/x', strict, ['address']],
    ['https://[fe80::1]/x', strict, ['address']],
    ['https://[fd00::1]/x', strict, ['address']],
    ['https://10.0.0.5:8443/x', strict, ['address']],
    ['http://192.168.1.1/x', strict, ['scheme', 'address']],
    ['http://192.168.1.1/x', lax, []],
    ['https://[::1]/x', { allowHttp: false, allowPrivate: true }, []],
  ] as const)('%s %o → %o', (url, opts, codes) => {
    const issues = checkWebhookUrl(url, opts);
    expect(issues.map((i) => i.code)).toEqual(codes);
    for (const issue of issues) {
      expect(issue.key).toBe('url');
      expect(issue.message.length).toBeGreaterThan(0);
    }
  });

  it('names the reason and address in the message', () => {
    const [issue] = checkWebhookUrl('https://169.254.169.254/', strict);
    expect(issue!.message).toContain('link-local');
    expect(issue!.message).toContain('169.254.169.254');
  });
});

type LookupCallback = (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void;

function fakeLookup(addresses: dns.LookupAddress[]) {
  return vi.spyOn(dns, 'lookup').mockImplementation(((_host: string, _opts: unknown, cb: LookupCallback) => {
    process.nextTick(cb, null, addresses);
  }) as unknown as typeof dns.lookup);
}

describe('resolveAndCheck', () => {
  it.each([
    ['127.0.0.1', false, { blocked: 'loopback', address: '127.0.0.1' }],
    ['[::1]', false, { blocked: 'loopback', address: '::1' }],
    ['[::ffff:7f00:1]', false, { blocked: 'loopback', address: '::ffff:7f00:1' }],
    ['169.254.169.254', false, { blocked: 'link-local', address: '169.254.169.254' }],
    ['127.0.0.1', true, { address: '127.0.0.1', family: 4 }],
    ['[::1]', true, { address: '::1', family: 6 }],
    ['8.8.8.8', false, { address: '8.8.8.8', family: 4 }],
    ['[2606:4700:4700::1111]', false, { address: '2606:4700:4700::1111', family: 6 }],
  ])('literal %s (allowPrivate %s) → %o without a lookup', async (host, allowPrivate, expected) => {
    const spy = fakeLookup([]);
    await expect(resolveAndCheck(host, { allowPrivate })).resolves.toEqual(expected);
    expect(spy).not.toHaveBeenCalled();
  });

  it('blocks localhost through the real resolver', async () => {
    const result = await resolveAndCheck('localhost', { allowPrivate: false });
    expect(result).toMatchObject({ blocked: 'loopback' });
  });

  it('returns the first address of a public name, after one lookup with all: true', async () => {
    const spy = fakeLookup([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ]);
    await expect(resolveAndCheck('example.com', { allowPrivate: false })).resolves.toEqual({
      address: '93.184.215.14',
      family: 4,
    });
    expect(spy).toHaveBeenCalledTimes(1);
    expect(spy.mock.calls[0]![1]).toMatchObject({ all: true });
  });

  it.each([
    [
      [
        { address: '8.8.8.8', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
      'private',
    ],
    [
      [
        { address: '2606:4700:4700::1111', family: 6 },
        { address: 'fd00::1', family: 6 },
      ],
      'unique-local',
    ],
    [[{ address: '::ffff:169.254.169.254', family: 6 }], 'link-local'],
  ])('blocks when any resolved address is guarded: %o', async (addresses, reason) => {
    fakeLookup(addresses);
    await expect(resolveAndCheck('rebind.example', { allowPrivate: false })).resolves.toMatchObject({ blocked: reason });
  });

  it('allows a private resolution when allowPrivate is set', async () => {
    fakeLookup([{ address: '10.0.0.1', family: 4 }]);
    await expect(resolveAndCheck('intranet.example', { allowPrivate: true })).resolves.toEqual({
      address: '10.0.0.1',
      family: 4,
    });
  });

  it('rejects on resolver failure', async () => {
    vi.spyOn(dns, 'lookup').mockImplementation(((_host: string, _opts: unknown, cb: LookupCallback) => {
      process.nextTick(cb, Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), []);
    }) as unknown as typeof dns.lookup);
    await expect(resolveAndCheck('no-such-host.invalid', { allowPrivate: false })).rejects.toThrow(/ENOTFOUND/);
  });

  it('rejects an empty resolution', async () => {
    fakeLookup([]);
    await expect(resolveAndCheck('empty.example', { allowPrivate: false })).rejects.toThrow(/no addresses/);
  });
});
