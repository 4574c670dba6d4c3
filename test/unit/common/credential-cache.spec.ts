import {
  CREDENTIAL_CACHE_MAX,
  CredentialCache,
  QUARANTINE_MS,
} from '../../../src/common/auth/credential-cache';
import type { Principal } from '../../../src/common/auth/principal';
import type { AppConfig } from '../../../src/config/app.config';

const TTL = 5000;
const config = (ttl = TTL) => ({ credentialCacheTtlMs: ttl }) as AppConfig;
const apiKey = (id: string): Principal => ({ kind: 'api_key', id, workspaceId: 'ws_1' });
const merchantKey = (id: string, agentId: string): Principal => ({
  kind: 'protocol_key',
  id,
  workspaceId: 'ws_1',
  agentId,
  role: 'merchant',
  publicKey: null,
});

function enabledCache(ttl = TTL): CredentialCache {
  const cache = new CredentialCache(config(ttl));
  cache.setEnabled(true);
  return cache;
}

describe('CredentialCache', () => {
  it('keeps a found credential for the TTL, then forgets it', () => {
    const cache = enabledCache();
    cache.put('h1', apiKey('key_1'), cache.epoch, 1000);
    expect(cache.get('h1', 1000 + TTL - 1)).toEqual(apiKey('key_1'));
    expect(cache.get('h1', 1000 + TTL)).toBeNull();
  });

  it('caches nothing while disabled (LISTEN connection down) or with TTL 0, and disabling empties it', () => {
    const off = new CredentialCache(config());
    off.put('h1', apiKey('key_1'), off.epoch);
    expect(off.get('h1')).toBeNull();
    const zero = enabledCache(0);
    expect(zero.enabled).toBe(false);
    const cache = enabledCache();
    cache.put('h1', apiKey('key_1'), cache.epoch);
    cache.setEnabled(false);
    expect(cache.size).toBe(0);
    cache.setEnabled(true);
    expect(cache.get('h1')).toBeNull();
  });

  it('does not store a lookup that started before an invalidation (a revocation racing a read)', () => {
    const cache = enabledCache();
    const epoch = cache.epoch; // the lookup starts…
    cache.invalidate(['key_other']); // …any revocation lands meanwhile…
    cache.put('h1', apiKey('key_1'), epoch); // …its result is not kept
    expect(cache.get('h1')).toBeNull();
  });

  it('drops a revoked principal and keeps it out for the quarantine, protocol keys of a changed agent too', () => {
    const cache = enabledCache();
    cache.put('h1', apiKey('key_1'), cache.epoch, 0);
    cache.put('h2', merchantKey('pkey_1', 'agt_1'), cache.epoch, 0);
    cache.put('h3', apiKey('key_2'), cache.epoch, 0);
    cache.invalidate(['key_1', 'agt_1'], 0);
    expect(cache.get('h1', 1)).toBeNull();
    expect(cache.get('h2', 1)).toBeNull();
    expect(cache.get('h3', 1)).toEqual(apiKey('key_2'));
    cache.put('h1', apiKey('key_1'), cache.epoch, QUARANTINE_MS - 1);
    expect(cache.get('h1', QUARANTINE_MS - 1)).toBeNull();
    cache.put('h1', apiKey('key_1'), cache.epoch, QUARANTINE_MS);
    expect(cache.get('h1', QUARANTINE_MS)).toEqual(apiKey('key_1'));
  });

  it(`holds at most ${CREDENTIAL_CACHE_MAX} entries, the oldest making room`, () => {
    const cache = enabledCache();
    for (let i = 0; i <= CREDENTIAL_CACHE_MAX; i++) {
      cache.put(`h${i}`, apiKey(`key_${i}`), cache.epoch);
    }
    expect(cache.size).toBe(CREDENTIAL_CACHE_MAX);
    expect(cache.get('h0')).toBeNull();
    expect(cache.get(`h${CREDENTIAL_CACHE_MAX}`)).not.toBeNull();
  });

  it('hands out copies, so a caller cannot change what others get', () => {
    const cache = enabledCache();
    cache.put('h1', apiKey('key_1'), cache.epoch);
    (cache.get('h1') as { workspaceId: string }).workspaceId = 'ws_evil';
    expect(cache.get('h1')).toEqual(apiKey('key_1'));
  });
});
