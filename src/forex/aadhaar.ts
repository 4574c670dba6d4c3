/**
 * Aadhaar is never collected (spec §2, DOMAIN.md C.26–27). The detector lives in
 * src/common/identity (any script, separator and grouping, after NFKC) and the HTTP edge refuses
 * it in every request (identity-edge.ts); the forex services keep their own checks behind it
 * through these names.
 */
export {
  containsAadhaar,
  isAadhaarKind,
  isAadhaarNumber,
  verhoeffCheckDigit,
  verhoeffValid,
} from '../common/identity/identity-numbers';
export { findAadhaar } from '../common/identity/identity-walk';
