import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The public half of an Ed25519 JWK (RFC 8037). */
export interface PublicOkpJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
}

/**
 * A service signing key. kid is the RFC 7638 thumbprint of publicJwk. privateKeyPem is null when
 * the key comes from SIGNING_PRIVATE_KEY (only the public part is recorded, for the JWKS).
 * Rows are never deleted: every kid that ever signed stays published so old receipts verify.
 */
@Entity('signing_keys')
export class SigningKey {
  @PrimaryColumn('text') kid: string;
  @Column('text') alg: 'EdDSA';
  @Column('text', { nullable: true }) privateKeyPem: string | null;
  @Column('jsonb') publicJwk: PublicOkpJwk;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz', { nullable: true }) retiredAt: Date | null;
}
