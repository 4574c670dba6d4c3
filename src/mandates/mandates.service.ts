import { Inject, Injectable } from '@nestjs/common';

import { AgentRepository } from '../accounts/agent.repository';
import { canBuy, canSell } from '../accounts/entities/agent.entity';
import { AuditActor, AuditLog } from '../common/audit';
import type { AgentPrincipal, ApiKeyPrincipal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { newId } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { RefusalKeepingWrites, Tx } from '../database/tx';
import { DelegatedTokenRepository } from '../delegate-payment/delegated-token.repository';
import {
  recordConsentGiven,
  recordConsentWithdrawn,
} from '../personal-data/personal-data.repository';
import type { MandateBillingCycle } from '../recurring/autopay-schedule';
import { MandateResponse } from './dto/mandate.response';
import { Mandate, MandateKind, MandateRail, MandateStatus } from './mandate.entity';
import { toMandateResponse } from './mandate.mapper';
import { MandateRepository, SessionFacts } from './mandate.repository';
import { effectiveMandateStatus, expiryIsUnpersisted, isRevocable } from './mandate.state';
import { mandateErrors } from './mandates.errors';

const YEAR_MS = 365 * 24 * 3600_000;
/** The lowest maximum per debit a person may set: ₹1. */
export const MIN_MAX_PER_DEBIT_PAISE = 100;
/** A valid_from this far in the past is clock skew, not back-dating. */
const BACKDATE_TOLERANCE_MS = 5 * 60_000;

export type MandateCaller = ApiKeyPrincipal | AgentPrincipal;

export interface CreateMandateInput {
  buyerAgentId?: string;
  perPaymentCapPaise: number;
  payeeAgentIds?: string[] | null;
  validFrom?: string;
  validUntil: string;
  rail?: MandateRail;
  kind?: 'standing' | 'recurring';
  billingCycle?: MandateBillingCycle;
  description?: string;
}

export interface OneTimeMandateInput {
  workspaceId: string;
  buyerAgentId: string;
  capPaise: number;
  payeeAgentId: string;
  validUntil: Date;
  description: string;
}

export interface MandateListFilter {
  buyerAgentId?: string;
  status?: MandateStatus;
  limit?: number;
  startingAfter?: string;
}

/**
 * UPI mandates of buyer agents (docs/mandates.md "Mandates, approvals and the consent centre"): a per-payment
 * cap, an optional seller list and a validity window, authorised once by a person of the workspace
 * in the app. Created by buyer agents or API keys (standing) and by delegate_payment without a
 * mandate_id (one_time).
 */
@Injectable()
export class MandatesService {
  private readonly authorisedHooks: ((m: Mandate) => Promise<void>)[] = [];
  private readonly endedHooks: ((m: Mandate) => Promise<void>)[] = [];

  constructor(
    private readonly tx: Tx,
    private readonly repo: MandateRepository,
    private readonly agents: AgentRepository,
    private readonly tokens: DelegatedTokenRepository,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** POST /v1/pay/mandates: a standing mandate, pending until a person authorises it. */
  async create(caller: MandateCaller, input: CreateMandateInput): Promise<MandateResponse> {
    return this.tx.run(async () => {
      const buyerAgentId = await this.resolveBuyer(caller, input.buyerAgentId);
      const now = this.clock.now();
      const validFrom = input.validFrom ? new Date(input.validFrom) : now;
      const validUntil = new Date(input.validUntil);
      this.checkWindow(validFrom, validUntil, now);
      const payees = input.payeeAgentIds ?? null;
      const terms = this.kindAndRail(input, payees);
      if (payees) {
        await this.checkPayees(payees);
      }
      const mandate = await this.insert({
        workspaceId: caller.workspaceId,
        buyerAgentId,
        ...terms,
        perPaymentCapPaise: input.perPaymentCapPaise,
        // A recurring mandate's cap is the agent's proposed maximum per debit; the person may lower it.
        proposedCapPaise: terms.kind === 'recurring' ? input.perPaymentCapPaise : null,
        payeeAgentIds: payees,
        validFrom,
        validUntil,
        description: input.description ?? null,
        createdAt: now,
      });
      await this.audit.record(
        caller.workspaceId,
        { type: caller.kind, id: caller.id },
        'mandate.created',
        mandate.id,
        {
          buyer_agent_id: buyerAgentId,
          kind: mandate.kind,
          per_payment_cap_paise: mandate.perPaymentCapPaise,
          ...(mandate.billingCycle ? { billing_cycle: mandate.billingCycle } : {}),
        },
      );
      return this.toResponse(mandate);
    });
  }

  /**
   * delegate_payment without a mandate_id: a one-time mandate (UPI OTM) scoped exactly to the
   * allowance (cap = max_amount, the one merchant, until the token's expiry), awaiting a person.
   * Runs in the caller's transaction.
   */
  async createOneTime(input: OneTimeMandateInput, actor: AuditActor): Promise<Mandate> {
    const now = this.clock.now();
    const mandate = await this.insert({
      workspaceId: input.workspaceId,
      buyerAgentId: input.buyerAgentId,
      kind: 'one_time',
      rail: 'upi_otm',
      billingCycle: null,
      perPaymentCapPaise: input.capPaise,
      payeeAgentIds: [input.payeeAgentId],
      validFrom: now,
      validUntil: input.validUntil,
      description: input.description,
      createdAt: now,
    });
    await this.audit.record(input.workspaceId, actor, 'mandate.created', mandate.id, {
      kind: 'one_time',
    });
    return mandate;
  }

  /** A mandate of the workspace (optionally only if held by this buyer agent); 404 otherwise. */
  async get(workspaceId: string, id: string, buyerAgentId?: string): Promise<Mandate> {
    const m = await this.repo.findInWorkspace(workspaceId, id);
    if (!m || (buyerAgentId !== undefined && m.buyerAgentId !== buyerAgentId)) {
      throw mandateErrors.notFound(id);
    }
    return m;
  }

  /** GET /v1/pay/mandates/:id. An agent credential sees only its own mandates. */
  async retrieve(caller: MandateCaller, id: string): Promise<MandateResponse> {
    return this.toResponse(
      await this.get(caller.workspaceId, id, caller.kind === 'agent' ? caller.id : undefined),
    );
  }

  async list(caller: MandateCaller, f: MandateListFilter): Promise<Page<MandateResponse>> {
    const limit = f.limit ?? 20;
    const now = this.clock.now();
    const rows = await this.repo.page(
      {
        workspaceId: caller.workspaceId,
        // An agent credential is always scoped to itself; a filter naming another agent matches nothing.
        buyerAgentId: caller.kind === 'agent' ? caller.id : f.buyerAgentId,
        status: f.status,
        now,
      },
      limit,
      decodeCursor(f.startingAfter),
    );
    const mine =
      caller.kind === 'agent' && f.buyerAgentId !== undefined && f.buyerAgentId !== caller.id
        ? []
        : rows;
    return toPage(mine, limit, (m) => toMandateResponse(m, now, this.config.appUrl));
  }

  /** Newest mandates of a workspace, for the consent centre. */
  async listForWorkspace(
    workspaceId: string,
    limit: number,
  ): Promise<{ mandates: Mandate[]; hasMore: boolean }> {
    const rows = await this.repo.page({ workspaceId, now: this.clock.now() }, limit, null);
    return { mandates: rows.slice(0, limit), hasMore: rows.length > limit };
  }

  /** Names of agents of any workspace (the sellers on a mandate live in other workspaces). */
  async agentNames(ids: string[]): Promise<Map<string, string>> {
    return new Map((await this.agents.findByIds([...new Set(ids)])).map((a) => [a.id, a.name]));
  }

  /** A mandate by id, any workspace (recurring charges: the seller's side), without a lock. */
  findAnyById(id: string): Promise<Mandate | null> {
    return this.repo.findById(id);
  }

  /** For a recurring charge: the mandate by id (any workspace), share-locked; null when unknown. */
  findForChargeLocked(id: string): Promise<Mandate | null> {
    return this.repo.lockSharedById(id);
  }

  /**
   * For delegate_payment: the buyer agent's mandate, share-locked for the rest of the transaction
   * (null when it does not exist or belongs to another agent), and the named checkout session's
   * facts, in one statement.
   */
  findForBuyerLockedWithSession(
    buyerAgentId: string,
    id: string,
    sessionId: string,
  ): Promise<{ mandate: Mandate | null; session: SessionFacts | null }> {
    return this.repo.lockSharedForBuyerWithSession(buyerAgentId, id, sessionId);
  }

  statusOf(m: Mandate): MandateStatus {
    return effectiveMandateStatus(m, this.clock.now());
  }

  toResponse(m: Mandate): MandateResponse {
    return toMandateResponse(m, this.clock.now(), this.config.appUrl);
  }

  /**
   * Work to do once a mandate is authorised, after the authorisation commits (the gateway rail
   * registers it: src/payments/payments.module.ts). A hook's failure is logged, never the person's
   * problem: the rail registers the mandate again on its first debit.
   */
  onAuthorised(hook: (m: Mandate) => Promise<void>): void {
    this.authorisedHooks.push(hook);
  }

  /**
   * Work to do once a mandate is revoked or declined, after that commits (the gateway rail cancels
   * its AutoPay token). Failures are logged: nothing is debited on a revoked mandate anyway, since
   * every debit passes the buyer's rules first.
   */
  onEnded(hook: (m: Mandate) => Promise<void>): void {
    this.endedHooks.push(hook);
  }

  /**
   * A person of the workspace authorises a pending mandate in the app (the only way to activate
   * one). On a recurring mandate the person may set a lower maximum per debit than the agent
   * proposed (`maxPerDebitPaise`, ₹1 up to the proposal); that maximum is what is stored and used.
   */
  async authorise(
    workspaceId: string,
    id: string,
    personId: string,
    opts: { maxPerDebitPaise?: number } = {},
  ): Promise<Mandate> {
    return this.decide(workspaceId, id, async (m, now) => {
      const cap = this.authorisedMaximum(m, opts.maxPerDebitPaise);
      m.status = 'active';
      m.authorisedBy = personId;
      m.authorisedAt = now;
      m.perPaymentCapPaise = cap;
      await this.repo.update(m.id, {
        status: 'active',
        authorisedBy: personId,
        authorisedAt: now,
        perPaymentCapPaise: cap,
      });
      await this.audit.record(
        workspaceId,
        { type: 'person', id: personId },
        'mandate.authorised',
        m.id,
        m.kind === 'recurring'
          ? { max_per_debit_paise: cap, proposed_max_per_debit_paise: m.proposedCapPaise }
          : undefined,
      );
      await recordConsentGiven(this.tx.manager, {
        workspaceId,
        personId,
        kind: 'mandate',
        subjectId: m.id,
        at: now,
      });
      for (const hook of this.authorisedHooks) {
        this.tx.afterCommit(() => hook(m));
      }
    });
  }

  /** A person declines a pending mandate: it ends as revoked, with any token drawn on it. */
  async decline(workspaceId: string, id: string, personId: string): Promise<Mandate> {
    return this.decide(workspaceId, id, async (m, now) => {
      await this.markRevoked(m, now, { type: 'person', id: personId }, 'mandate.declined');
    });
  }

  /**
   * Consent centre: revoke a pending or active mandate, effective on the next request; its usable
   * tokens are revoked with it (the consent centre also declines the payments waiting on it).
   * Revoking a mandate that is already revoked or expired changes nothing.
   */
  async revoke(workspaceId: string, id: string, actor: AuditActor): Promise<Mandate> {
    return this.tx.run(async () => {
      await this.tokens.lockUsableOnMandate(id);
      const m = await this.lock(workspaceId, id);
      const now = this.clock.now();
      if (expiryIsUnpersisted(m, now)) {
        await this.markExpired(m);
      } else if (isRevocable(m.status)) {
        await this.markRevoked(m, now, actor, 'mandate.revoked');
      }
      return m;
    });
  }

  /** The cap a person authorises: the proposal, or on a recurring mandate a lower maximum. */
  private authorisedMaximum(m: Mandate, requested: number | undefined): number {
    if (requested === undefined) {
      return m.perPaymentCapPaise;
    }
    if (m.kind !== 'recurring') {
      throw mandateErrors.maximumOnlyRecurring();
    }
    const proposal = m.proposedCapPaise ?? m.perPaymentCapPaise;
    if (
      !Number.isSafeInteger(requested) ||
      requested < MIN_MAX_PER_DEBIT_PAISE ||
      requested > proposal
    ) {
      throw mandateErrors.maximumOutOfRange(proposal);
    }
    return requested;
  }

  private async decide(
    workspaceId: string,
    id: string,
    apply: (m: Mandate, now: Date) => Promise<void>,
  ): Promise<Mandate> {
    return this.tx.run(async () => {
      const m = await this.lock(workspaceId, id);
      const now = this.clock.now();
      if (expiryIsUnpersisted(m, now)) {
        // The expiry is a fact the refusal must not roll back: it commits, then the caller is told.
        await this.markExpired(m);
        throw new RefusalKeepingWrites(mandateErrors.expired(id));
      }
      if (m.status === 'expired') {
        throw mandateErrors.expired(id);
      }
      if (m.status !== 'pending_authorisation') {
        throw mandateErrors.notPending(id, m.status);
      }
      await apply(m, now);
      return m;
    });
  }

  private async lock(workspaceId: string, id: string): Promise<Mandate> {
    const m = await this.repo.lockInWorkspace(workspaceId, id);
    if (!m) {
      throw mandateErrors.notFound(id);
    }
    return m;
  }

  private async markExpired(m: Mandate): Promise<void> {
    m.status = 'expired';
    await this.repo.update(m.id, { status: 'expired' });
  }

  private async markRevoked(
    m: Mandate,
    now: Date,
    actor: AuditActor,
    action: string,
  ): Promise<void> {
    m.status = 'revoked';
    m.revokedAt = now;
    await this.repo.update(m.id, { status: 'revoked', revokedAt: now });
    const tokenIds = await this.tokens.revokeUsableOnMandate(m.id, now);
    await this.audit.record(m.workspaceId, actor, action, m.id, { revoked_token_ids: tokenIds });
    await recordConsentWithdrawn(this.tx.manager, 'mandate', m.id, now);
    for (const hook of this.endedHooks) {
      this.tx.afterCommit(() => hook(m));
    }
  }

  private async resolveBuyer(
    caller: MandateCaller,
    requested: string | undefined,
  ): Promise<string> {
    if (caller.kind === 'agent') {
      if (!canBuy(caller.role)) {
        throw mandateErrors.agentIsNotBuyer(caller.role);
      }
      if (requested !== undefined && requested !== caller.id) {
        throw mandateErrors.agentNotSelf();
      }
      return caller.id;
    }
    if (requested === undefined) {
      throw mandateErrors.buyerAgentRequired();
    }
    const agent = await this.agents.findActive(caller.workspaceId, requested);
    if (!agent) {
      throw mandateErrors.buyerAgentNotFound(requested);
    }
    if (!canBuy(agent.role)) {
      throw mandateErrors.notABuyer(agent.id, agent.role);
    }
    return agent.id;
  }

  /**
   * A standing mandate names its rail (upi_reserve_pay or upi_otm). A recurring one is UPI AutoPay
   * (rail upi_autopay) with a billing cycle, and names the sellers that may charge it: a charge is
   * taken without the person acting, so "any seller" is never allowed.
   */
  private kindAndRail(
    input: CreateMandateInput,
    payees: string[] | null,
  ): Pick<Mandate, 'kind' | 'rail' | 'billingCycle'> {
    if (input.kind === 'recurring') {
      if (input.rail !== undefined && input.rail !== 'upi_autopay') {
        throw mandateErrors.recurringRail();
      }
      if (!payees) {
        throw mandateErrors.recurringNeedsPayees();
      }
      return { kind: 'recurring', rail: 'upi_autopay', billingCycle: input.billingCycle ?? null };
    }
    if (input.billingCycle !== undefined) {
      throw mandateErrors.cycleWithoutRecurring();
    }
    if (input.rail === 'upi_autopay' || input.rail === undefined) {
      throw mandateErrors.standingRail();
    }
    return { kind: 'standing', rail: input.rail, billingCycle: null };
  }

  private checkWindow(validFrom: Date, validUntil: Date, now: Date): void {
    if (validFrom.getTime() < now.getTime() - BACKDATE_TOLERANCE_MS) {
      throw mandateErrors.invalidWindow(
        '$.valid_from',
        'valid_from cannot be in the past; omit it to start now',
      );
    }
    if (validUntil.getTime() <= now.getTime()) {
      throw mandateErrors.invalidWindow('$.valid_until', 'valid_until must be in the future');
    }
    if (validUntil.getTime() <= validFrom.getTime()) {
      throw mandateErrors.invalidWindow('$.valid_until', 'valid_until must be after valid_from');
    }
    if (validUntil.getTime() > now.getTime() + YEAR_MS) {
      throw mandateErrors.invalidWindow(
        '$.valid_until',
        'valid_until can be at most one year (365 days) from now',
      );
    }
  }

  /** Every payee must be an existing, enabled seller agent (of any workspace). */
  private async checkPayees(ids: string[]): Promise<void> {
    const agents = new Map((await this.agents.findByIds(ids)).map((a) => [a.id, a]));
    ids.forEach((id, i) => {
      const a = agents.get(id);
      if (!a || a.disabledAt || !canSell(a.role)) {
        throw mandateErrors.payeeNotSeller(i, id);
      }
    });
  }

  private async insert(
    fields: Pick<
      Mandate,
      | 'workspaceId'
      | 'buyerAgentId'
      | 'rail'
      | 'billingCycle'
      | 'perPaymentCapPaise'
      | 'payeeAgentIds'
      | 'validFrom'
      | 'validUntil'
      | 'description'
      | 'createdAt'
    > & { kind: MandateKind; proposedCapPaise?: number | null },
  ): Promise<Mandate> {
    const mandate = Object.assign(new Mandate(), {
      id: newId('mdt'),
      proposedCapPaise: null,
      ...fields,
      status: 'pending_authorisation' as const,
      authorisedBy: null,
      authorisedAt: null,
      revokedAt: null,
    });
    await this.repo.insert(mandate);
    return mandate;
  }
}
