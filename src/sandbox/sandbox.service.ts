import { Inject, Injectable } from '@nestjs/common';

import { findLiveApiKeyByHash } from '../accounts/accounts.repository';
import { AccountsService } from '../accounts/accounts.service';
import { findAgentByCredentialHash } from '../accounts/agent.repository';
import type { AgentRole } from '../accounts/entities/agent.entity';
import type { AuditActor } from '../common/audit';
import type { AgentPrincipal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { sha256Hex, verifyPassword } from '../common/crypto/secrets';
import { randomToken } from '../common/ids';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { ForexPartnersService } from '../forex/forex-partners.service';
import { MandateRepository } from '../mandates/mandate.repository';
import { MandatesService } from '../mandates/mandates.service';
import { OperatorsService } from '../ops/operators.service';
import type { ProtocolKeyRole } from '../protocol-keys/protocol-key.entity';
import { findLiveProtocolKeyByHash } from '../protocol-keys/protocol-key.repository';
import { ProtocolKeysService } from '../protocol-keys/protocol-keys.service';
import { PutListingDto } from '../seller/dto/put-listing.dto';
import { SellerService } from '../seller/seller.service';
import { WebhookEndpointsService } from '../webhooks/webhook-endpoints.service';

/**
 * What `npm run sandbox -- --json` prints. Every secret in it is fresh on each run, unless the run
 * was given the previous ones to keep (SandboxOptions.keep, `--env-file`).
 */
export interface SandboxResult {
  api_key: string;
  person: { email: string; password: string };
  seller: { agent_id: string; credential: string };
  buyer: { agent_id: string; credential: string };
  merchant_protocol_key: string;
  buyer_protocol_key: string;
  base_url: string;
  app_url: string;
  workspace_id: string;
  /** Published offers of the seller: one at or below ₹2,000 (settles at once), one above (asks a person). */
  offers: { sku: string; name: string; unit_paise: number; category: string }[];
  /** An active standing mandate of the buyer, authorised by the demo person. */
  mandate_id: string;
  /**
   * The sandbox AD Category-II forex partner (src/forex) and its dealer's sign-in for the dealer
   * desk ({app_url}/forex/desk). The dealer's password is fresh on each run.
   */
  forex: {
    partner_id: string;
    partner_name: string;
    licence_number: string;
    dealer: { email: string; password: string };
  };
  /** Present with --webhook-url: the seller workspace's sandbox endpoint and its secret (shown once). */
  webhook?: { endpoint_id: string; url: string; secret: string };
  /** The operator of the sandbox (workspace "Operators"): signs in at sign_in_url to reach the queue dashboard. */
  operator: { email: string; password: string; sign_in_url: string };
}

export interface SandboxOptions {
  /** Register (or replace) a webhook endpoint for every event at this URL. */
  webhookUrl?: string;
  /**
   * Secrets of an earlier run (read back from its env file): each one that still authenticates
   * as the same sandbox item is kept and nothing is revoked for it; each one missing or no longer
   * valid is replaced, that item only. Without it every secret is fresh (the previous ones stop
   * working).
   */
  keep?: SandboxKeep;
}

/** The secrets an earlier run issued, as `keep` takes them. Any may be missing. */
export interface SandboxKeep {
  api_key?: string;
  person_password?: string;
  seller_credential?: string;
  buyer_credential?: string;
  merchant_protocol_key?: string;
  buyer_protocol_key?: string;
  dealer_password?: string;
  operator_password?: string;
}

export const SANDBOX = {
  email: 'demo@sandbox.local',
  personName: 'Demo Person',
  workspaceName: 'Sandbox workspace',
  apiKeyName: 'sandbox',
  seller: { name: 'Sandbox seller', role: 'seller' as AgentRole },
  buyer: { name: 'Sandbox buyer', role: 'buyer' as AgentRole },
  offers: [
    { sku: 'sku_tea_1kg', name: 'Assam tea 1 kg', unit_paise: 45_000, category: 'food.tea' },
    {
      sku: 'sku_tea_hamper',
      name: 'Darjeeling tea hamper',
      unit_paise: 350_000,
      category: 'food.tea',
    },
  ],
  mandateDescription: 'Sandbox mandate',
  webhookDescription: 'sandbox',
  forex: {
    partnerName: 'Sandbox Forex (AD Category-II)',
    licenceNumber: 'FE.SBX.AD2.0001',
    dealerEmail: 'dealer@sandbox.local',
    dealerName: 'Sandbox Dealer',
    /** ₹500 per quote. */
    serviceFeePaise: 50_000,
  },
  /** ₹10,000 per payment, any seller, 90 days. */
  mandateCapPaise: 1_000_000,
  mandateDays: 90,
  operator: { email: 'ops@sandbox.local', name: 'Sandbox Operator', workspaceName: 'Operators' },
} as const;

const ACTOR: AuditActor = { type: 'system', id: 'sandbox' };
/** pg advisory lock id: two bootstraps at once queue instead of racing on the demo workspace. */
const LOCK_ID = '7306032021501';

/** State the steps hand on; later steps (offers, a mandate) read ids from here. */
export interface SandboxContext {
  workspaceId: string;
  personId: string;
}

/**
 * Creates or reuses the demo workspace (found by the demo person's email), so ids stay the same
 * across runs. Secrets are stored hashed and cannot be shown again, so a run issues fresh ones and
 * revokes the ones it issued before, unless it is handed the previous ones (`keep`, read back from
 * the env file): those that still authenticate are kept. Runs in one transaction: a failure leaves the previous
 * secrets working.
 */
@Injectable()
export class SandboxService {
  constructor(
    private readonly tx: Tx,
    private readonly accounts: AccountsService,
    private readonly protocolKeys: ProtocolKeysService,
    private readonly listings: SellerService,
    private readonly mandates: MandatesService,
    private readonly mandateRows: MandateRepository,
    private readonly webhooks: WebhookEndpointsService,
    private readonly operators: OperatorsService,
    private readonly forexPartners: ForexPartnersService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async bootstrap(opts: SandboxOptions = {}): Promise<SandboxResult> {
    if (this.config.mode === 'live') {
      // A demo person with a printed password and an authorised mandate has no place in production.
      throw new Error('The sandbox bootstrap refuses to run in live mode (MODE=live)');
    }
    return this.tx.run(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock($1::bigint)', [LOCK_ID]);
      const keep = opts.keep;
      const ctx = await this.ensureWorkspace();
      const password =
        (await this.keptPassword(SANDBOX.email, keep?.person_password)) ??
        (await this.resetPassword(ctx));
      const apiKey = (await this.keptApiKey(ctx, keep?.api_key)) ?? (await this.replaceApiKey(ctx));
      const seller = await this.ensureAgent(ctx, SANDBOX.seller, keep?.seller_credential);
      const buyer = await this.ensureAgent(ctx, SANDBOX.buyer, keep?.buyer_credential);
      if (!keep) {
        await this.revokeProtocolKeys(ctx, [seller.agent_id, buyer.agent_id]);
      }
      const merchantKey =
        (await this.keptProtocolKey(seller.agent_id, 'merchant', keep?.merchant_protocol_key)) ??
        (await this.issueProtocolKey(ctx, seller.agent_id, 'merchant'));
      const buyerKey =
        (await this.keptProtocolKey(buyer.agent_id, 'buyer', keep?.buyer_protocol_key)) ??
        (await this.issueProtocolKey(ctx, buyer.agent_id, 'buyer'));
      const offers = await this.publishOffers(ctx, seller.agent_id);
      const mandateId = await this.ensureMandate(ctx, buyer.agent_id);
      const forex = await this.ensureForexPartner(keep?.dealer_password);
      const webhook = opts.webhookUrl ? await this.replaceWebhook(ctx, opts.webhookUrl) : undefined;
      const keptOperatorPassword = await this.keptPassword(
        SANDBOX.operator.email,
        keep?.operator_password,
      );
      const operator = keptOperatorPassword
        ? { email: SANDBOX.operator.email, password: keptOperatorPassword }
        : await this.operators.ensureOperator(SANDBOX.operator, ACTOR);
      return {
        api_key: apiKey,
        person: { email: SANDBOX.email, password },
        seller,
        buyer,
        merchant_protocol_key: merchantKey,
        buyer_protocol_key: buyerKey,
        base_url: this.config.baseUrl,
        app_url: this.config.appUrl,
        workspace_id: ctx.workspaceId,
        offers,
        mandate_id: mandateId,
        forex,
        ...(webhook ? { webhook } : {}),
        operator: {
          email: operator.email,
          password: operator.password,
          sign_in_url: `${this.config.appUrl}/login?next=${encodeURIComponent('/app/ops/queues')}`,
        },
      };
    });
  }

  /**
   * The sandbox forex partner (found again by its licence number) with its own workspace and one
   * dealer, whose password is reset like the demo person's; rates missing from its table are
   * seeded from the sandbox table (a dealer's edits stay).
   */
  private async ensureForexPartner(keepPassword?: string): Promise<SandboxResult['forex']> {
    const spec = SANDBOX.forex;
    let password = newPassword();
    let partner = await this.forexPartners.findByLicence(spec.licenceNumber);
    if (partner) {
      const dealer = await this.accounts.findPersonByEmail(spec.dealerEmail);
      const kept = await this.keptPassword(spec.dealerEmail, keepPassword);
      if (kept) {
        password = kept;
      } else if (dealer) {
        await this.accounts.setPassword(dealer.id, password, ACTOR);
      }
      await this.forexPartners.seedRates(partner.id);
    } else {
      partner = (
        await this.forexPartners.register(
          {
            name: spec.partnerName,
            licenceNumber: spec.licenceNumber,
            serviceFeePaise: spec.serviceFeePaise,
            dealer: { email: spec.dealerEmail, name: spec.dealerName, password },
          },
          ACTOR,
        )
      ).partner;
    }
    return {
      partner_id: partner.id,
      partner_name: partner.name,
      licence_number: partner.licenceNumber,
      dealer: { email: spec.dealerEmail, password },
    };
  }

  /** Disables the previous sandbox endpoints and registers a fresh one for every event type. */
  private async replaceWebhook(
    ctx: SandboxContext,
    url: string,
  ): Promise<NonNullable<SandboxResult['webhook']>> {
    const previous = await this.webhooks.enabledWithDescription(
      ctx.workspaceId,
      SANDBOX.webhookDescription,
    );
    for (const { id } of previous) {
      await this.webhooks.disableEndpoint(ctx.workspaceId, id, ACTOR);
    }
    const created = await this.webhooks.createEndpoint(
      ctx.workspaceId,
      { url, eventTypes: ['*'], description: SANDBOX.webhookDescription },
      ACTOR,
    );
    return { endpoint_id: created.id, url: created.url, secret: created.secret! };
  }

  private async publishOffers(
    ctx: SandboxContext,
    sellerId: string,
  ): Promise<SandboxResult['offers']> {
    const seller: AgentPrincipal = {
      kind: 'agent',
      id: sellerId,
      workspaceId: ctx.workspaceId,
      role: 'seller',
      publicKey: null,
    };
    const offers = SANDBOX.offers.map((o) => ({ ...o }));
    await this.listings.putListing(
      seller,
      sellerId,
      Object.assign(new PutListingDto(), { listed: true, offers }),
    );
    return offers;
  }

  /** Reuses the buyer's sandbox mandate while it is active; otherwise creates one and authorises it as the demo person. */
  private async ensureMandate(ctx: SandboxContext, buyerId: string): Promise<string> {
    const now = this.clock.now();
    const existing = await this.mandateRows.findActiveByDescription(
      buyerId,
      SANDBOX.mandateDescription,
      new Date(now.getTime() + 7 * 86_400_000),
    );
    if (existing) {
      return existing.id;
    }
    const buyer: AgentPrincipal = {
      kind: 'agent',
      id: buyerId,
      workspaceId: ctx.workspaceId,
      role: 'buyer',
      publicKey: null,
    };
    const created = await this.mandates.create(buyer, {
      perPaymentCapPaise: SANDBOX.mandateCapPaise,
      payeeAgentIds: null,
      validUntil: new Date(now.getTime() + SANDBOX.mandateDays * 86_400_000).toISOString(),
      rail: 'upi_reserve_pay',
      description: SANDBOX.mandateDescription,
    });
    await this.mandates.authorise(ctx.workspaceId, created.id, ctx.personId);
    return created.id;
  }

  /**
   * Sign-up issues a 'default' API key that nobody ever sees; it is revoked at once so the only
   * live key is the 'sandbox' one.
   */
  private async ensureWorkspace(): Promise<SandboxContext> {
    const existing = await this.accounts.findPersonByEmail(SANDBOX.email);
    if (existing) {
      return { workspaceId: existing.workspaceId, personId: existing.id };
    }
    const { workspace, person, apiKey } = await this.accounts.signUp({
      workspaceName: SANDBOX.workspaceName,
      email: SANDBOX.email,
      name: SANDBOX.personName,
      password: newPassword(),
    });
    await this.accounts.revokeApiKey(workspace.id, apiKey.id, ACTOR);
    return { workspaceId: workspace.id, personId: person.id };
  }

  /** The earlier password when it still signs this person in, else null. */
  private async keptPassword(email: string, password?: string): Promise<string | null> {
    if (!password) {
      return null;
    }
    const person = await this.accounts.findPersonByEmail(email);
    return person && (await verifyPassword(password, person.passwordHash)) ? password : null;
  }

  /** The earlier API key when it is still live, of this workspace and named 'sandbox'; else null. */
  private async keptApiKey(ctx: SandboxContext, secret?: string): Promise<string | null> {
    if (!secret) {
      return null;
    }
    const key = await findLiveApiKeyByHash(this.tx.manager, sha256Hex(secret));
    return key?.workspaceId === ctx.workspaceId && key.name === SANDBOX.apiKeyName ? secret : null;
  }

  /** The earlier protocol key when it is still live and bound to this agent with this role; else null. */
  private async keptProtocolKey(
    agentId: string,
    role: ProtocolKeyRole,
    secret?: string,
  ): Promise<string | null> {
    if (!secret) {
      return null;
    }
    const key = await findLiveProtocolKeyByHash(this.tx.manager, sha256Hex(secret));
    return key?.agentId === agentId && key.role === role ? secret : null;
  }

  /** Also ends the demo person's open sessions (AccountsService.setPassword). */
  private async resetPassword(ctx: SandboxContext): Promise<string> {
    const password = newPassword();
    await this.accounts.setPassword(ctx.personId, password, ACTOR);
    return password;
  }

  private async replaceApiKey(ctx: SandboxContext): Promise<string> {
    for (const old of await this.accounts.findActiveApiKeysByName(
      ctx.workspaceId,
      SANDBOX.apiKeyName,
    )) {
      await this.accounts.revokeApiKey(ctx.workspaceId, old.id, ACTOR);
    }
    const key = await this.accounts.createApiKey(ctx.workspaceId, SANDBOX.apiKeyName, ACTOR);
    return key.secret!;
  }

  /** Same agent id every run; a reused agent gets a rotated credential (the old one stops working). */
  private async ensureAgent(
    ctx: SandboxContext,
    spec: { name: string; role: AgentRole },
    keepCredential?: string,
  ): Promise<{ agent_id: string; credential: string }> {
    const existing = await this.accounts.findAgentByName(ctx.workspaceId, spec.name);
    if (existing && keepCredential) {
      const found = await findAgentByCredentialHash(this.tx.manager, sha256Hex(keepCredential));
      if (found?.id === existing.id) {
        return { agent_id: existing.id, credential: keepCredential };
      }
    }
    const agent = existing
      ? await this.accounts.rotateAgentCredential(ctx.workspaceId, existing.id, ACTOR)
      : await this.accounts.createAgent(
          ctx.workspaceId,
          { name: spec.name, role: spec.role },
          ACTOR,
        );
    return { agent_id: agent.id, credential: agent.credential! };
  }

  /** Revokes every live protocol key bound to these agents (keys a person issued to them too). */
  private async revokeProtocolKeys(ctx: SandboxContext, agentIds: string[]): Promise<void> {
    let cursor: string | undefined;
    do {
      const page = await this.protocolKeys.list(ctx.workspaceId, 100, cursor);
      for (const key of page.data) {
        if (key.revoked_at === null && agentIds.includes(key.agent_id)) {
          await this.protocolKeys.revoke(ctx.workspaceId, key.id, ACTOR);
        }
      }
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  private async issueProtocolKey(
    ctx: SandboxContext,
    agentId: string,
    role: ProtocolKeyRole,
  ): Promise<string> {
    const key = await this.protocolKeys.create(
      ctx.workspaceId,
      { role, agentId, name: `sandbox ${role} key` },
      ACTOR,
    );
    return key.key!;
  }
}

function newPassword(): string {
  return `sbx-${randomToken(20)}`;
}
