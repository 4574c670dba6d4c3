import {
  policyHeaderItem,
  rateLimitPolicies,
  rateLimitSubject,
} from '../../../src/common/rate-limit/rate-limit.policies';
import { loadConfig } from '../../../src/config/app.config';

describe('rateLimitPolicies', () => {
  it('counts credentials per second, public routes over burst/rate seconds, sign-in per minute', () => {
    const p = rateLimitPolicies(
      loadConfig({ RATE_LIMIT_PUBLIC_PER_S: '10', RATE_LIMIT_PUBLIC_BURST: '20' }),
    );
    expect(p.credential).toEqual({ name: 'credential', limit: 25, windowMs: 1000 });
    expect(p.public).toEqual({ name: 'public', limit: 20, windowMs: 2000 });
    expect(p.login).toEqual({ name: 'login', limit: 10, windowMs: 60_000 });
  });

  it('describes a policy as RateLimit-Policy does: limit;w=seconds', () => {
    expect(policyHeaderItem({ name: 'public', limit: 20, windowMs: 2000 })).toBe('20;w=2');
    expect(policyHeaderItem({ name: 'public', limit: 3, windowMs: 300 })).toBe('3;w=1');
  });
});

describe('rateLimitSubject', () => {
  it('counts an IPv6 client per /64 and an IPv4 client per address', () => {
    expect(rateLimitSubject.address('2001:db8:1:2:aaaa::1')).toBe(
      rateLimitSubject.address('2001:db8:1:2:bbbb::2'),
    );
    expect(rateLimitSubject.address('203.0.113.7')).not.toBe(
      rateLimitSubject.address('203.0.113.8'),
    );
  });

  it('keys sign-in by a hash of address and normalised email, never the email itself', () => {
    const s = rateLimitSubject.login('203.0.113.7', ' Person@Example.test ');
    expect(s).toBe(rateLimitSubject.login('203.0.113.7', 'person@example.test'));
    expect(s).not.toContain('example');
  });
});
