import type * as RequestFilteringAgent from 'request-filtering-agent';

import { createGuardedAgents } from '../../../src/common/net/guarded-agents';
import {
  addressRefusal,
  localDevelopment,
  publicOnly,
} from '../../../src/common/net/outbound-policy';
import { classifyAddress } from '../../../src/common/net/safe-fetch';

describe('classifyAddress', () => {
  it.each([
    // 10/8
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['9.255.255.255', 'public'],
    ['11.0.0.0', 'public'],
    // 172.16/12
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    // 192.168/16
    ['192.168.0.1', 'private'],
    ['192.168.255.255', 'private'],
    ['192.169.0.1', 'public'],
    // 127/8
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    // 169.254/16, with the metadata address named as such
    ['169.254.0.1', 'link_local'],
    ['169.254.255.255', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    // 100.64/10
    ['100.64.0.0', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['100.100.100.200', 'metadata'],
    // unspecified
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    // IPv6
    ['::1', 'loopback'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fe80::1', 'link_local'],
    ['febf:ffff::1', 'link_local'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    // IPv4-mapped IPv6: judged by the IPv4 inside, in either spelling
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:0.0.0.0', 'unspecified'],
    // other special-purpose ranges
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['64:ff9b::a00:1', 'reserved'],
    ['2002:a00:1::', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['168.63.129.16', 'metadata'],
    // public
    ['93.184.215.14', 'public'],
    ['8.8.8.8', 'public'],
    ['2606:4700::1111', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    // not addresses
    ['localhost', 'invalid'],
    ['', 'invalid'],
    ['10.0.0.256', 'invalid'],
    ['[::1]', 'invalid'],
  ])('%s is %s', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });
});

describe('outbound policies', () => {
  it('public_only refuses everything but public unicast, IPv4-mapped spellings included', () => {
    const policy = publicOnly();
    for (const address of [
      '10.0.0.1',
      '127.0.0.1',
      '::1',
      '169.254.169.254',
      '100.64.0.1',
      '::ffff:8.8.8.8',
    ]) {
      expect(addressRefusal(address, policy)).not.toBeNull();
    }
    expect(addressRefusal('8.8.8.8', policy)).toBeNull();
    expect(addressRefusal('2606:4700::1111', policy)).toBeNull();
  });

  it('local_development lets loopback and private through, never link-local or metadata', () => {
    const policy = localDevelopment();
    for (const address of [
      '127.0.0.1',
      '::1',
      '10.0.0.1',
      '172.17.0.2',
      'fd00::1',
      '100.64.0.1',
      '8.8.8.8',
    ]) {
      expect(addressRefusal(address, policy)).toBeNull();
    }
    for (const address of [
      '169.254.1.1',
      '169.254.169.254',
      'fe80::1',
      '0.0.0.0',
      '224.0.0.1',
      'fd00:ec2::254',
    ]) {
      expect(addressRefusal(address, policy)).not.toBeNull();
    }
  });

  it('an allow list admits exact addresses, never a metadata one, and takes no CIDRs', () => {
    const policy = publicOnly(['127.0.0.1', '169.254.169.254']);
    expect(addressRefusal('127.0.0.1', policy)).toBeNull();
    expect(addressRefusal('127.0.0.2', policy)).toMatch(/loopback/);
    expect(addressRefusal('169.254.169.254', policy)).toMatch(/metadata/);
    expect(() => publicOnly(['127.0.0.0/8'])).toThrow(TypeError);
  });

  it('enforces through request-filtering-agent agents', () => {
    const library = process.getBuiltinModule('node:module').createRequire(__filename)(
      'request-filtering-agent',
    ) as typeof RequestFilteringAgent;
    const agents = createGuardedAgents(publicOnly());
    expect(agents.http).toBeInstanceOf(library.RequestFilteringHttpAgent);
    expect(agents.https).toBeInstanceOf(library.RequestFilteringHttpsAgent);
  });
});
