import { Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import type { AuditActor } from '../common/audit';
import { commonErrors } from '../common/errors/app-error';
import { AppLayout } from './app-layout.service';
import type { SignedInPerson } from './signed-in-person';

const actor = (p: SignedInPerson): AuditActor => ({ type: 'person', id: p.personId });

/** The signed-in home: workspace, agents and API keys (hints only), key creation and revocation. */
@Injectable()
export class AppHomeService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly layout: AppLayout,
  ) {}

  async homePage(person: SignedInPerson) {
    const [agents, apiKeys] = await Promise.all([
      this.accounts.listAgents(person.workspaceId, 100),
      this.accounts.listApiKeys(person.workspaceId, 100),
    ]);
    return this.layout.page(person, person.workspaceName, {
      agents: agents.data,
      apiKeys: apiKeys.data.map((k) => ({ ...k, active: k.revoked_at === null })),
      moreAgents: agents.has_more,
      moreApiKeys: apiKeys.has_more,
    });
  }

  /** The response is the only place the secret ever appears (the page is no-store). */
  async createApiKey(person: SignedInPerson, rawName: string) {
    const name = rawName.trim();
    if (name.length < 1 || name.length > 100) {
      throw commonErrors.invalid('$.name', 'Key name must be 1 to 100 characters');
    }
    const key = await this.accounts.createApiKey(person.workspaceId, name, actor(person));
    return this.layout.page(person, 'API key created', { apiKey: key });
  }

  async revokeApiKey(person: SignedInPerson, id: string): Promise<void> {
    await this.accounts.revokeApiKey(person.workspaceId, id, actor(person));
  }
}
