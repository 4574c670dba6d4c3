import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The public half of an Ed25519 JWK (RFC 8037). */
export interface PublicOkpJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
}

/**
 * A service signing key. kid is the RFC 7638 thumbprint of publicJwk. privateKeySealed is the
 * PKCS#8 PEM sealed with AES-256-GCM under SIGNING_KEY_ENCRYPTION_KEY (bound to the kid; see
 * common/crypto/sealed.ts), never the plaintext; the column keeps its historical name
 * private_key_pem, and a CHECK refuses anything but the sealed layout. It is null when the key
 * comes from SIGNING_PRIVATE_KEY (only the public part is recorded, for the JWKS).
 * Rows are never deleted: every kid that ever signed stays published so old receipts verify.
 */
@Entity('signing_keys')
export class SigningKey {
  @PrimaryColumn('text') kid: string;
  @Column('text') alg: 'EdDSA';
  @Column('text', { name: 'private_key_pem', nullable: true }) privateKeySealed: string | null;
  @Column('jsonb') publicJwk: PublicOkpJwk;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz', { nullable: true }) retiredAt: Date | null;
}
