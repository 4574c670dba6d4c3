import { BlockList, isIP } from 'node:net';

/**
 * What kind of IP address a host resolved to, for the outbound SSRF rules (docs/documents.md "Documents and
 * outbound fetches"). Pure and synchronous: Node's BlockList does the prefix matching, including
 * IPv4-mapped IPv6 spellings (`::ffff:10.0.0.1`, `::ffff:a00:1`), which are judged by the IPv4
 * address they carry.
 *
 * - `metadata`: cloud instance-metadata services (checked first, so 169.254.169.254 is metadata,
 *   not merely link-local, and Azure's 168.63.129.16 is refused although it looks public);
 * - `unspecified` 0.0.0.0/8 and `::`; `loopback` 127/8 and `::1`; `link_local` 169.254/16 and
 *   fe80::/10; `private` 10/8, 172.16/12, 192.168/16, fc00::/7 (unique local) and fec0::/10;
 *   `cgnat` 100.64/10; `multicast` 224/4 and ff00::/8;
 * - `reserved`: every other special-purpose range (240/4 and broadcast, documentation,
 *   benchmarking, IETF assignments, 6to4, Teredo, NAT64, IPv4-compatible `::a.b.c.d`, discard…);
 * - `invalid`: not an IP address at all (a host name must be resolved first);
 * - `public`: anything else.
 */
export type AddressClass =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link_local'
  | 'metadata'
  | 'unspecified'
  | 'cgnat'
  | 'multicast'
  | 'reserved'
  | 'invalid';

type Range = [network: string, prefix: number];

/** Instance-metadata addresses of the clouds we might run on, and services with the same role. */
export const METADATA_ADDRESSES: readonly string[] = [
  '169.254.169.254', // AWS, GCP, Azure IMDS, OpenStack, DigitalOcean, Oracle
  '169.254.170.2', // AWS ECS task metadata
  '100.100.100.200', // Alibaba Cloud
  '168.63.129.16', // Azure WireServer (public-looking, but the host's own service)
  '192.0.0.192', // Oracle Cloud (legacy)
  'fd00:ec2::254', // AWS IMDS over IPv6
];

const CLASS_RANGES: [AddressClass, Range[], Range[]][] = [
  // [class, IPv4 ranges, IPv6 ranges], in the order they are checked.
  ['metadata', [], [['fd00:ec2::', 32]]],
  ['unspecified', [['0.0.0.0', 8]], [['::', 128]]],
  ['loopback', [['127.0.0.0', 8]], [['::1', 128]]],
  ['link_local', [['169.254.0.0', 16]], [['fe80::', 10]]],
  [
    'private',
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
    ],
    [
      ['fc00::', 7],
      ['fec0::', 10],
    ],
  ],
  ['cgnat', [['100.64.0.0', 10]], []],
  ['multicast', [['224.0.0.0', 4]], [['ff00::', 8]]],
  [
    'reserved',
    [
      ['240.0.0.0', 4], // reserved for future use, and 255.255.255.255 broadcast
      ['192.0.0.0', 24], // IETF protocol assignments
      ['192.0.2.0', 24], // documentation
      ['192.88.99.0', 24], // 6to4 relay anycast
      ['192.31.196.0', 24], // AS112
      ['192.52.193.0', 24], // AMT
      ['192.175.48.0', 24], // AS112
      ['198.18.0.0', 15], // benchmarking
      ['198.51.100.0', 24], // documentation
      ['203.0.113.0', 24], // documentation
    ],
    [
      ['::', 96], // IPv4-compatible (deprecated); :: and ::1 are matched above
      ['::ffff:0:0:0', 96], // IPv4-translated
      ['64:ff9b::', 96], // NAT64, may carry a private IPv4
      ['64:ff9b:1::', 48], // local-use NAT64
      ['100::', 64], // discard
      ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, benchmarking…)
      ['2001:db8::', 32], // documentation
      ['2002::', 16], // 6to4, carries an IPv4
      ['2620:4f:8000::', 48], // AS112
      ['3fff::', 20], // documentation
      ['5f00::', 16], // segment routing
    ],
  ],
];

interface ClassLists {
  cls: AddressClass;
  v4: BlockList;
  v6: BlockList;
}

function listOf(ranges: Range[], type: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) {
    list.addSubnet(network, prefix, type);
  }
  return list;
}

const LISTS: ClassLists[] = CLASS_RANGES.map(([cls, v4, v6]) => ({
  cls,
  v4: listOf(v4, 'ipv4'),
  v6: listOf(v6, 'ipv6'),
}));

const METADATA = new BlockList();
for (const address of METADATA_ADDRESSES) {
  METADATA.addAddress(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** The IPv4-mapped block `::ffff:0:0/96`; only meaningful for addresses that are IPv6 spellings. */
const MAPPED = listOf([['::ffff:0:0', 96]], 'ipv6');

/**
 * Whether `address` is an IPv6 spelling of an IPv4 address (`::ffff:127.0.0.1`). Such addresses
 * are classified by the IPv4 they carry; the public-only policy refuses them anyway, since a
 * resolver never needs to hand them out and they exist mostly to confuse filters.
 */
export function isIpv4Mapped(address: string): boolean {
  return isIP(address) === 6 && MAPPED.check(address, 'ipv6');
}

/** The class of one IP address (no DNS); `invalid` when it is not an IP address. */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) {
    return 'invalid';
  }
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (METADATA.check(address, type)) {
    return 'metadata';
  }
  for (const { cls, v4, v6 } of LISTS) {
    // IPv4 rules also match IPv4-mapped IPv6 spellings; IPv6 rules are asked about IPv6 only.
    if (v4.check(address, type) || (family === 6 && v6.check(address, 'ipv6'))) {
      return cls;
    }
  }
  return 'public';
}
