import { Injectable } from '@nestjs/common';

import { findLiveApiKeyByHash } from '../accounts/accounts.repository';
import { findAgentByCredentialHash } from '../accounts/agent.repository';
import { Agent } from '../accounts/entities/agent.entity';
import type { CredentialLookup } from '../common/auth/credential-lookup';
import type {
  AgentPrincipal,
  ApiKeyPrincipal,
  ProtocolKeyPrincipal,
  RegisteredKey,
} from '../common/auth/principal';
import { Tx } from '../database/tx';
import { ProtocolKey } from './protocol-key.entity';
import { findLiveProtocolKeyByHash } from './protocol-key.repository';

/** The public key a credential registered (requests must then be signed), or null. */
function registeredKey(
  row: Pick<Agent | ProtocolKey, 'publicKeyPem' | 'publicKeyAlg'>,
): RegisteredKey | null {
  return row.publicKeyPem && row.publicKeyAlg
    ? { pem: row.publicKeyPem, alg: row.publicKeyAlg }
    : null;
}

/**
 * The CredentialLookup port of common's CredentialResolver, over the owners' tables in the ambient
 * transaction: API keys and agents (accounts) and protocol keys. It lives here because
 * protocol-keys already sits above accounts (docs/architecture.md, `protocol-keys/`).
 */
@Injectable()
export class StoredCredentialLookup implements CredentialLookup {
  constructor(private readonly tx: Tx) {}

  async apiKey(hash: string): Promise<ApiKeyPrincipal | null> {
    const key = await findLiveApiKeyByHash(this.tx.manager, hash);
    return key ? { kind: 'api_key', id: key.id, workspaceId: key.workspaceId } : null;
  }

  async agent(hash: string): Promise<AgentPrincipal | null> {
    const agent = await findAgentByCredentialHash(this.tx.manager, hash);
    return agent
      ? {
          kind: 'agent',
          id: agent.id,
          workspaceId: agent.workspaceId,
          role: agent.role,
          publicKey: registeredKey(agent),
        }
      : null;
  }

  async protocolKey(hash: string): Promise<ProtocolKeyPrincipal | null> {
    const row = await findLiveProtocolKeyByHash(this.tx.manager, hash);
    return row
      ? {
          kind: 'protocol_key',
          id: row.id,
          workspaceId: row.workspaceId,
          agentId: row.agentId,
          role: row.role,
          publicKey: registeredKey(row),
        }
      : null;
  }
}
