import type { PublicKeyAlg } from '../signing/public-key';
import type { AgentRole, ProtocolKeyRole } from './roles';

export interface RegisteredKey {
  pem: string;
  alg: PublicKeyAlg;
}

export type Principal =
  | { kind: 'api_key'; id: string; workspaceId: string }
  | {
      kind: 'agent';
      id: string;
      workspaceId: string;
      role: AgentRole;
      publicKey: RegisteredKey | null;
    }
  | {
      kind: 'protocol_key';
      id: string;
      workspaceId: string;
      agentId: string;
      role: ProtocolKeyRole;
      publicKey: RegisteredKey | null;
    };

export type PrincipalKind = Principal['kind'];
export type AgentPrincipal = Extract<Principal, { kind: 'agent' }>;
export type ApiKeyPrincipal = Extract<Principal, { kind: 'api_key' }>;
export type ProtocolKeyPrincipal = Extract<Principal, { kind: 'protocol_key' }>;

export const CREDENTIAL_PREFIX = {
  apiKey: (mode: string) => `sk_${mode === 'live' ? 'live' : 'test'}_`,
  agent: 'agc_',
  protocolKey: 'acpk_',
} as const;

export const KIND_LABEL: Record<PrincipalKind, string> = {
  api_key: 'an API key',
  agent: 'an agent credential',
  protocol_key: 'a protocol key',
};
