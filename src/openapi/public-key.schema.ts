/**
 * Swagger metadata for a `public_key` field: a PEM (SPKI) string or a JWK object (Ed25519 OKP or
 * P-256 EC). Validation is the services' (src/common/signing); this only types the field.
 */
const JWK_SCHEMA = {
  type: 'object',
  description: 'Public JWK: OKP/Ed25519 {kty, crv, x} or EC/P-256 {kty, crv, x, y}',
  required: ['kty', 'crv', 'x'],
  properties: {
    kty: { type: 'string', enum: ['OKP', 'EC'] },
    crv: { type: 'string', enum: ['Ed25519', 'P-256'] },
    x: { type: 'string', description: 'base64url' },
    y: { type: 'string', description: 'base64url (EC only)' },
  },
};

const PEM_SCHEMA = { type: 'string', description: 'PEM (SPKI), -----BEGIN PUBLIC KEY-----…' };

/** Same, where null is allowed too (null removes the key): null rides on the string branch. */
export const NULLABLE_PUBLIC_KEY_SCHEMA = {
  oneOf: [{ ...PEM_SCHEMA, nullable: true }, JWK_SCHEMA],
};

export const PUBLIC_KEY_SCHEMA = { oneOf: [PEM_SCHEMA, JWK_SCHEMA] };
