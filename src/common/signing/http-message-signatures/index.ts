// RFC 9421 HTTP Message Signatures: sign and verify (docs/http-message-signatures.md).
export { checkContentDigest, contentDigest } from './content-digest';
export { InMemoryNonceStore, type NonceStore } from './nonce-store';
export { createSignatureBase, type SignatureHeaders, signMessage, type SignOptions } from './sign';
export * from './types';
export {
  DEFAULT_CLOCK_SKEW_SECONDS,
  DEFAULT_MAX_AGE_SECONDS,
  DEFAULT_REQUIRED_REQUEST_COMPONENTS,
  DEFAULT_REQUIRED_RESPONSE_COMPONENTS,
  MAX_SIGNATURES,
  type VerificationKey,
  verifyMessageSignature,
  type VerifyOptions,
} from './verify';
