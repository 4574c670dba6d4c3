/**
 * The signed-in person lives in common (src/common/auth/signed-in-person.ts), below every feature,
 * so the credential rate limit can read it (docs/architecture.md, `common/`); the web module's
 * readers keep this path.
 */
export type { SignedInPerson } from '../common/auth/signed-in-person';
export { personOf, setPerson } from '../common/auth/signed-in-person';
