import { createPrivateKey, sign as cryptoSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  decodeBase64Url,
  parsePublicKey,
  verifyDetached,
} from '../../../src/common/signing/public-key';
import { signedBytes } from '../../../src/common/signing/signed-bytes';

interface Vector {
  name: string;
  timestamp: string;
  method: string;
  path: string;
  /** The body as sent on the wire; absent for a bodiless request. */
  body_json?: string;
  canonical: string;
}

interface Vectors {
  ed25519: {
    private_key_pem: string;
    public_key_pem: string;
    public_key_jwk: Record<string, string>;
    vectors: (Vector & { signature: string })[];
  };
  p256: {
    public_key_pem: string;
    vector: Vector & { signature_p1363: string; signature_der: string };
  };
}

const fixtures = JSON.parse(
  readFileSync(join(__dirname, '../../fixtures/signing/vectors.json'), 'utf8'),
) as Vectors;
const bodyOf = (v: Vector): unknown =>
  v.body_json === undefined ? undefined : JSON.parse(v.body_json);
const bytesOf = (v: Vector) => signedBytes(v.timestamp, v.method, v.path, bodyOf(v));

/** Known-answer vectors for our signing profile, docs/acp.md §3 (test/fixtures/signing/vectors.json). */
describe('signed bytes and detached signatures (known answers)', () => {
  const { private_key_pem, public_key_pem, vectors } = fixtures.ed25519;
  const privateKey = createPrivateKey(private_key_pem);

  describe.each(vectors)('Ed25519: $name', (v) => {
    it('builds the canonical string Timestamp\\nMETHOD\\npath?query\\nJCS(body)', () => {
      expect(bytesOf(v).toString('utf8')).toBe(v.canonical);
    });

    it('signs to the expected signature (Ed25519 is deterministic)', () => {
      expect(cryptoSign(null, bytesOf(v), privateKey).toString('base64url')).toBe(v.signature);
    });

    it('verifies the expected signature, padded or not', () => {
      const sig = decodeBase64Url(v.signature);
      expect(sig).not.toBeNull();
      expect(verifyDetached(public_key_pem, 'ed25519', bytesOf(v), sig!)).toBe(true);
      const padded = `${v.signature}${'='.repeat((4 - (v.signature.length % 4)) % 4)}`;
      expect(verifyDetached(public_key_pem, 'ed25519', bytesOf(v), decodeBase64Url(padded)!)).toBe(
        true,
      );
    });

    it('does not verify other bytes or a flipped signature', () => {
      const sig = decodeBase64Url(v.signature)!;
      const other = Buffer.from(`${v.canonical} `, 'utf8');
      expect(verifyDetached(public_key_pem, 'ed25519', other, sig)).toBe(false);
      const flipped = Buffer.from(sig);
      flipped[10] ^= 0x01;
      expect(verifyDetached(public_key_pem, 'ed25519', bytesOf(v), flipped)).toBe(false);
    });
  });

  it('hashes semantically: key order, 1.0 vs 1 and whitespace do not change the bytes; null and array order do', () => {
    const ts = '2026-04-17T10:00:00Z';
    const a = signedBytes(ts, 'POST', '/acp/x', JSON.parse('{"b":1.0,"a":[1,2]}'));
    const b = signedBytes(ts, 'POST', '/acp/x', JSON.parse('{ "a": [1, 2], "b": 1 }'));
    expect(a.equals(b)).toBe(true);
    expect(signedBytes(ts, 'POST', '/acp/x', { a: [2, 1], b: 1 }).equals(a)).toBe(false);
    expect(signedBytes(ts, 'POST', '/acp/x', { a: [1, 2], b: 1, c: null }).equals(a)).toBe(false);
    expect(signedBytes(ts, 'POST', '/acp/x?b=1', JSON.parse('{"b":1,"a":[1,2]}')).equals(a)).toBe(
      false,
    );
  });

  it('accepts the same public key as a JWK', () => {
    const fromJwk = parsePublicKey(fixtures.ed25519.public_key_jwk, '$.public_key');
    expect(fromJwk).toEqual({ alg: 'ed25519', pem: public_key_pem });
  });

  describe('P-256', () => {
    const { public_key_pem: pem, vector } = fixtures.p256;

    it('registers as p256', () => {
      expect(parsePublicKey(pem, '$.public_key').alg).toBe('p256');
    });

    it('verifies the 64-byte r||s signature over the same canonical bytes', () => {
      expect(bytesOf(vector).toString('utf8')).toBe(vector.canonical);
      const sig = decodeBase64Url(vector.signature_p1363)!;
      expect(sig).toHaveLength(64);
      expect(verifyDetached(pem, 'p256', bytesOf(vector), sig)).toBe(true);
      expect(verifyDetached(pem, 'p256', Buffer.from(`${vector.canonical}x`), sig)).toBe(false);
    });

    it('refuses the DER encoding of the same signature', () => {
      const der = decodeBase64Url(vector.signature_der)!;
      expect(der[0]).toBe(0x30);
      expect(verifyDetached(pem, 'p256', bytesOf(vector), der)).toBe(false);
    });

    it('does not verify with the wrong algorithm or key', () => {
      const sig = decodeBase64Url(vector.signature_p1363)!;
      expect(verifyDetached(pem, 'ed25519', bytesOf(vector), sig)).toBe(false);
      expect(verifyDetached(public_key_pem, 'p256', bytesOf(vector), sig)).toBe(false);
    });
  });

  it('decodes base64url only: standard base64 characters and junk are refused', () => {
    expect(decodeBase64Url('ab+/')).toBeNull();
    expect(decodeBase64Url('a b')).toBeNull();
    expect(decodeBase64Url('')).toBeNull();
    expect(decodeBase64Url('AQID')).toEqual(Buffer.from([1, 2, 3]));
    expect(decodeBase64Url('AQ==')).toEqual(Buffer.from([1]));
  });
});
