import { Inject, Injectable } from '@nestjs/common';

import { AuditActor, AuditLog } from '../common/audit';
import { CREDENTIAL_PREFIX } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { CredentialRevocations } from '../common/credentials/credential-revocations';
import { RevocableCredentials } from '../common/credentials/revocable-credentials';
import { hashPassword, issueSecret } from '../common/crypto/secrets';
import { AppError, commonErrors } from '../common/errors/app-error';
import { newId } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination';
import { parsePublicKey } from '../common/signing/public-key';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { deleteSessionsOf } from '../web/person-session.repository';
import { AccountsRepository, API_KEYS } from './accounts.repository';
import { AgentRepository } from './agent.repository';
import { AgentResponse, ApiKeyResponse } from './dto/accounts.dto';
import { Agent, AgentRole } from './entities/agent.entity';
import { ApiKey } from './entities/api-key.entity';
import { Person } from './entities/person.entity';
import { Workspace } from './entities/workspace.entity';

export function toApiKeyResponse(k: ApiKey, secret?: string): ApiKeyResponse {
  return {
    id: k.id,
    object: 'api_key',
    name: k.name,
    hint: k.hint,
    ...(secret ? { secret } : {}),
    created_at: k.createdAt.toISOString(),
    revoked_at: k.revokedAt ? k.revokedAt.toISOString() : null,
  };
}

export function toAgentResponse(a: Agent, credential?: string): AgentResponse {
  return {
    id: a.id,
    object: 'agent',
    name: a.name,
    role: a.role,
    credential_hint: a.credentialHint,
    ...(credential ? { credential } : {}),
    public_key_alg: a.publicKeyAlg,
    created_at: a.createdAt.toISOString(),
  };
}

export interface SignupResult {
  workspace: Workspace;
  person: Person;
  apiKey: ApiKeyResponse;
}

/** Workspaces, their people, API keys and agents. Secrets are returned once and stored hashed. */
@Injectable()
export class AccountsService {
  constructor(
    private readonly tx: Tx,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly repo: AccountsRepository,
    private readonly agents: AgentRepository,
    private readonly credentials: RevocableCredentials,
    private readonly revocations: CredentialRevocations,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A sign-in (or the sign-up's own session) just started: the retention job's "last seen". */
  async recordSignIn(personId: string, at: Date): Promise<void> {
    await this.repo.recordSignIn(personId, at);
  }

  async signUp(input: {
    workspaceName: string;
    email: string;
    name: string;
    password: string;
  }): Promise<SignupResult> {
    const email = input.email.trim().toLowerCase();
    if (input.password.length < 10) {
      throw commonErrors.invalid('$.password', 'Password must be at least 10 characters');
    }
    const passwordHash = await hashPassword(input.password);
    return this.tx.run(async () => {
      const existing = await this.repo.findPersonByEmail(email);
      if (existing) {
        throw new AppError(
          400,
          'invalid_request',
          'email_taken',
          'An account with this email already exists',
          '$.email',
        );
      }
      const workspace = await this.repo.insertWorkspace({
        id: newId('ws'),
        name: input.workspaceName,
      });
      const person = await this.repo.insertPerson({
        id: newId('per'),
        workspaceId: workspace.id,
        email,
        name: input.name,
        passwordHash,
      });
      const apiKey = await this.createApiKey(workspace.id, 'default', {
        type: 'person',
        id: person.id,
      });
      await this.audit.record(
        workspace.id,
        { type: 'person', id: person.id },
        'workspace.created',
        workspace.id,
      );
      return { workspace, person, apiKey };
    });
  }

  async createApiKey(
    workspaceId: string,
    name: string,
    actor: AuditActor,
  ): Promise<ApiKeyResponse> {
    const secret = issueSecret(CREDENTIAL_PREFIX.apiKey(this.config.mode));
    return this.tx.run(async () => {
      const key = await this.repo.insertApiKey({
        id: newId('key'),
        workspaceId,
        name,
        secretHash: secret.hash,
        hint: secret.hint,
        revokedAt: null,
        lastUsedAt: null,
      });
      const saved = await this.repo.apiKeyById(key.id);
      await this.audit.record(workspaceId, actor, 'api_key.created', key.id);
      return toApiKeyResponse(saved, secret.plaintext);
    });
  }

  listApiKeys(
    workspaceId: string,
    limit = 20,
    startingAfter?: string,
  ): Promise<Page<ApiKeyResponse>> {
    return this.credentials.list(API_KEYS, workspaceId, { limit, startingAfter }, (k) =>
      toApiKeyResponse(k),
    );
  }

  async revokeApiKey(workspaceId: string, id: string, actor: AuditActor): Promise<ApiKeyResponse> {
    return toApiKeyResponse(await this.credentials.revoke(API_KEYS, workspaceId, id, actor));
  }

  async createAgent(
    workspaceId: string,
    input: { name: string; role: AgentRole; publicKey?: unknown },
    actor: AuditActor,
  ): Promise<AgentResponse> {
    const key =
      input.publicKey === undefined || input.publicKey === null
        ? null
        : parsePublicKey(input.publicKey, '$.public_key');
    const secret = issueSecret(CREDENTIAL_PREFIX.agent);
    return this.tx.run(async () => {
      const agent = Object.assign(new Agent(), {
        id: newId('agt'),
        workspaceId,
        name: input.name,
        role: input.role,
        credentialHash: secret.hash,
        credentialHint: secret.hint,
        publicKeyPem: key?.pem ?? null,
        publicKeyAlg: key?.alg ?? null,
        disabledAt: null,
      });
      await this.agents.insert(agent);
      await this.audit.record(workspaceId, actor, 'agent.created', agent.id, { role: input.role });
      return toAgentResponse((await this.agents.findById(agent.id)) as Agent, secret.plaintext);
    });
  }

  async getAgent(workspaceId: string, id: string): Promise<Agent> {
    const agent = await this.agents.findActive(workspaceId, id);
    if (!agent) {
      throw commonErrors.notFound('agent', id);
    }
    return agent;
  }

  async listAgents(
    workspaceId: string,
    limit = 20,
    startingAfter?: string,
  ): Promise<Page<AgentResponse>> {
    const cursor = decodeCursor(startingAfter);
    const rows = await this.agents.pageActive(workspaceId, limit, cursor);
    return toPage(rows, limit, (a) => toAgentResponse(a));
  }

  /** Issues a new credential; the old one stops working on the next request. */
  async rotateAgentCredential(
    workspaceId: string,
    id: string,
    actor: AuditActor,
  ): Promise<AgentResponse> {
    const secret = issueSecret(CREDENTIAL_PREFIX.agent);
    return this.tx.run(async () => {
      const agent = await this.getAgent(workspaceId, id);
      await this.agents.update(id, { credentialHash: secret.hash, credentialHint: secret.hint });
      await this.audit.record(workspaceId, actor, 'agent.credential_rotated', id);
      await this.revocations.revoked([id]); // the old credential, cached on any instance
      return toAgentResponse({ ...agent, credentialHint: secret.hint }, secret.plaintext);
    });
  }

  async setAgentPublicKey(
    workspaceId: string,
    id: string,
    publicKey: unknown,
    actor: AuditActor,
  ): Promise<AgentResponse> {
    const key =
      publicKey === null || publicKey === undefined
        ? null
        : parsePublicKey(publicKey, '$.public_key');
    return this.tx.run(async () => {
      const agent = await this.getAgent(workspaceId, id);
      await this.agents.update(id, {
        publicKeyPem: key?.pem ?? null,
        publicKeyAlg: key?.alg ?? null,
      });
      await this.audit.record(workspaceId, actor, 'agent.public_key_set', id, {
        alg: key?.alg ?? null,
      });
      await this.revocations.revoked([id]); // a cached principal must not skip the new signature check
      return toAgentResponse({ ...agent, publicKeyAlg: key?.alg ?? null });
    });
  }

  /** Case-insensitive (emails are stored lower-case); null when nobody has this email. */
  async findPersonByEmail(email: string): Promise<Person | null> {
    return this.repo.findPersonByEmail(email.trim().toLowerCase());
  }

  /** Sets a new password and ends every session of that person (old sign-ins stop working). */
  async setPassword(personId: string, password: string, actor: AuditActor): Promise<void> {
    if (password.length < 10) {
      throw commonErrors.invalid('$.password', 'Password must be at least 10 characters');
    }
    const passwordHash = await hashPassword(password);
    await this.tx.run(async (m) => {
      const person = await this.repo.findPersonById(personId);
      if (!person) {
        throw commonErrors.notFound('person', personId);
      }
      await this.repo.updatePerson(personId, { passwordHash });
      await deleteSessionsOf(m, personId);
      await this.audit.record(person.workspaceId, actor, 'person.password_set', personId);
    });
  }

  /** Unrevoked keys with this exact name, oldest first (used to replace a named key). */
  async findActiveApiKeysByName(workspaceId: string, name: string): Promise<ApiKeyResponse[]> {
    const rows = await this.repo.liveApiKeysByName(workspaceId, name);
    return rows.map((k) => toApiKeyResponse(k));
  }

  /** The oldest active agent with this name in the workspace; null when there is none. */
  async findAgentByName(workspaceId: string, name: string): Promise<Agent | null> {
    return this.agents.findActiveByName(workspaceId, name);
  }
}
