import type { AgentPrincipal, ApiKeyPrincipal, ProtocolKeyPrincipal } from './principal';

/**
 * Where CredentialResolver finds a live credential by the SHA-256 of its secret. A port, so that
 * common reads no feature's tables (docs/architecture.md, `common/`): `StoredCredentialLookup`
 * (src/protocol-keys/stored-credential-lookup.ts) implements it and src/app.module.ts hands it to
 * `CommonModule.forRoot`. Each method answers null for an unknown, revoked or disabled credential.
 */
export interface CredentialLookup {
  apiKey(hash: string): Promise<ApiKeyPrincipal | null>;
  agent(hash: string): Promise<AgentPrincipal | null>;
  protocolKey(hash: string): Promise<ProtocolKeyPrincipal | null>;
}

/** Nest injection token of the CredentialLookup. */
export const CREDENTIAL_LOOKUP = Symbol('CREDENTIAL_LOOKUP');
