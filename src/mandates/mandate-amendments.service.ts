import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';

import { AgentRepository } from '../accounts/agent.repository';
import { canBuy, canSell } from '../accounts/entities/agent.entity';
import { ChainService } from '../chains/chain.service';
import { AuditActor, AuditLog } from '../common/audit';
import type { AgentPrincipal, ApiKeyPrincipal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import type { AppError } from '../common/errors/app-error';
import { newId } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination';
import { Sweeper } from '../common/sweeper/sweeper';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { RefusalKeepingWrites, Tx } from '../database/tx';
import { OutboxRepository } from '../outbox/outbox.repository';
import { CreateMandateAmendmentDto, MandateAmendmentResponse } from './dto/mandate-amendment.dto';
import { Mandate } from './mandate.entity';
import { MandateRepository } from './mandate.repository';
import { effectiveMandateStatus } from './mandate.state';
import {
  AMENDABLE_TERMS,
  AmendableTerm,
  AmendmentStatus,
  MandateAmendment,
  MandateTerms,
} from './mandate-amendment.entity';
import { MandateAmendmentRepository } from './mandate-amendment.repository';
import { amendmentErrors } from './mandate-amendments.errors';
import { registrationPendingRetryAfter, registrationStateOf } from './mandate-registration-state';

/** Events to the buyer's webhook endpoints (src/webhooks/webhook-event-types.ts). */
export const AMENDMENT_EVENTS = {
  requested: 'mandate.amendment_requested',
  authorised: 'mandate.amendment_authorised',
  declined: 'mandate.amendment_declined',
} as const;

export type AmendmentCaller = ApiKeyPrincipal | AgentPrincipal;
const YEAR_MS = 365 * 24 * 3600_000;
const SYSTEM: AuditActor = { type: 'system', id: 'mandate-amendments' };
const NEEDS_NEW_REGISTRATION_NOTE =
  'The mandate was registered at the gateway with its cap and end; a higher cap or a later end cannot apply to that token';

/** The terms a mandate has now, in the amendment's wire form. */
export function termsOf(m: Mandate): MandateTerms {
  return {
    per_payment_cap_paise: m.perPaymentCapPaise,
    valid_until: m.validUntil.toISOString(),
    payee_agent_ids: m.payeeAgentIds,
  };
}

/** The terms a gateway registration carries (the AutoPay token's max_amount and expire_at). */
const LIMIT_TERMS: readonly AmendableTerm[] = ['per_payment_cap_paise', 'valid_until'];

function sameTerm(k: AmendableTerm, a: MandateTerms, b: MandateTerms): boolean {
  if (k === 'payee_agent_ids') {
    const x = a.payee_agent_ids;
    const y = b.payee_agent_ids;
    return x === null || y === null
      ? x === y
      : x.length === y.length && [...x].sort().join() === [...y].sort().join();
  }
  return a[k] === b[k];
}

/**
 * Amending a mandate (docs/mandates.md "Mandates, approvals and the consent centre"; RBI E-Mandate Framework
 * 2026, DOMAIN.md 12a: modifying a mandate needs fresh authorisation). The buyer agent asks; a
 * person of the workspace sees the old and new terms side by side in the app and authorises or
 * declines. Until then the mandate's own columns (what the payment pipeline and recurring charges
 * read) keep the old terms; an authorised amendment writes the new ones in the same transaction
 * as the decision, under the mandate's lock (lock order: mandate → amendment → chain head).
 * Every request and outcome is audited and appended to the mandate's receipt chain (chain id =
 * the mandate id). Unanswered amendments expire after MANDATE_AMENDMENT_TTL_S (default 7 days);
 * one whose mandate ends first is withdrawn (a sweep every 5 s, and again when the person answers).
 */
@Injectable()
export class MandateAmendmentsService implements OnModuleInit {
  private readonly logger = new Logger(MandateAmendmentsService.name);

  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly mandates: MandateRepository,
    private readonly amendments: MandateAmendmentRepository,
    private readonly agents: AgentRepository,
    private readonly chains: ChainService,
    private readonly outbox: OutboxRepository,
    private readonly sweeper: Sweeper,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.sweeper.register('mandate-amendments-due', () => this.endDue(), { everyMs: 5000 });
  }

  /** POST /v1/pay/mandates/:id/amendments (the mandate's buyer agent). */
  async request(
    caller: AmendmentCaller,
    mandateId: string,
    body: CreateMandateAmendmentDto,
  ): Promise<MandateAmendmentResponse> {
    if (caller.kind !== 'agent' || !canBuy(caller.role)) {
      throw amendmentErrors.notBuyerAgent();
    }
    return this.tx.run(async () => {
      // The mandate's lock first: the old terms recorded are the terms in force.
      const m = await this.mandates.lockInWorkspace(caller.workspaceId, mandateId);
      if (!m || m.buyerAgentId !== caller.id) {
        throw amendmentErrors.notFound(mandateId);
      }
      if (m.kind === 'one_time') {
        throw amendmentErrors.notAmendable(m.id);
      }
      const now = this.clock.now();
      const status = effectiveMandateStatus(m, now);
      if (status !== 'active') {
        throw amendmentErrors.mandateNotActive(m.id, status);
      }
      const oldTerms = termsOf(m);
      const newTerms = await this.newTerms(m, body, now);
      const changed = AMENDABLE_TERMS.filter((k) => !sameTerm(k, oldTerms, newTerms));
      if (changed.length === 0) {
        throw amendmentErrors.nothingChanges();
      }
      const gateway = await this.gatewayRefusal(m, oldTerms, newTerms, now);
      if (gateway) {
        throw gateway.error;
      }
      const a = Object.assign(new MandateAmendment(), {
        id: newId('mam'),
        mandateId: m.id,
        workspaceId: m.workspaceId,
        buyerAgentId: m.buyerAgentId,
        status: 'pending' as const,
        oldTerms,
        newTerms,
        changed,
        reason: body.reason ?? null,
        chainId: m.id,
        createdAt: now,
        expiresAt: new Date(now.getTime() + this.config.mandateAmendmentTtlSeconds * 1000),
        decidedBy: null,
        decidedAt: null,
        decisionNote: null,
      });
      if (!(await this.amendments.insertIfNonePending(a))) {
        throw amendmentErrors.pendingExists((await this.amendments.findPending(m.id))?.id ?? null);
      }
      await this.audit.record(
        m.workspaceId,
        { type: 'agent', id: caller.id },
        'mandate.amendment_requested',
        m.id,
        { amendment_id: a.id, changed, old_terms: oldTerms, new_terms: newTerms },
      );
      await this.chains.append(a.chainId, {
        type: AMENDMENT_EVENTS.requested,
        mandate_id: m.id,
        amendment_id: a.id,
        old_terms: oldTerms,
        new_terms: newTerms,
        changed,
        reason: a.reason,
        requested_by: { type: 'agent', id: caller.id },
        expires_at: a.expiresAt.toISOString(),
      });
      await this.announce(a, AMENDMENT_EVENTS.requested);
      return this.toResponse(a);
    });
  }

  /** GET …/amendments: newest first. The workspace's API key, or the mandate's buyer agent. */
  async list(
    caller: AmendmentCaller,
    mandateId: string,
    q: { limit?: number; startingAfter?: string },
  ): Promise<Page<MandateAmendmentResponse>> {
    await this.visibleMandate(caller, mandateId);
    const limit = q.limit ?? 20;
    const rows = await this.amendments.page(mandateId, limit, decodeCursor(q.startingAfter));
    return toPage(rows, limit, (a) => this.toResponse(a));
  }

  /** GET …/amendments/:amendment, with the mandate's receipt chain entries. */
  async retrieve(
    caller: AmendmentCaller,
    mandateId: string,
    id: string,
  ): Promise<MandateAmendmentResponse> {
    await this.visibleMandate(caller, mandateId);
    const a = await this.amendments.findOfMandate(mandateId, id);
    if (!a) {
      throw amendmentErrors.notFound(id);
    }
    const res = this.toResponse(a);
    res.receipt_chain.entries = await this.chains.entries(a.chainId);
    return res;
  }

  /** For the person's page: the amendment and its mandate, in the person's workspace; 404 otherwise. */
  async forPerson(
    workspaceId: string,
    mandateId: string,
    id: string,
  ): Promise<{ amendment: MandateAmendment; mandate: Mandate }> {
    const mandate = await this.mandates.findInWorkspace(workspaceId, mandateId);
    const amendment = mandate ? await this.amendments.findOfMandate(mandateId, id) : null;
    if (!mandate || !amendment) {
      throw amendmentErrors.notFound(id);
    }
    return { amendment, mandate };
  }

  /**
   * The person's answer. Authorised: the mandate's cap, validity and payees become the new terms
   * in this transaction. Declined: nothing changes. An amendment past its expiry, or whose mandate
   * is no longer active, is ended (kept) and the answer refused.
   */
  async decide(
    workspaceId: string,
    mandateId: string,
    id: string,
    personId: string,
    decision: 'authorise' | 'decline',
  ): Promise<MandateAmendment> {
    return this.tx.run(async () => {
      const m = await this.mandates.lockInWorkspace(workspaceId, mandateId);
      const a = m ? await this.amendments.lock(mandateId, id) : null;
      if (!m || !a) {
        throw amendmentErrors.notFound(id);
      }
      if (a.status !== 'pending') {
        throw amendmentErrors.notPending(id, a.status);
      }
      const now = this.clock.now();
      const ended = this.endingOf(m, a, now);
      if (ended) {
        await this.finish(m, a, ended.status, SYSTEM, ended.note, now);
        throw new RefusalKeepingWrites(
          ended.status === 'expired'
            ? amendmentErrors.expired(id)
            : amendmentErrors.mandateNotActive(m.id, effectiveMandateStatus(m, now)),
        );
      }
      const person: AuditActor = { type: 'person', id: personId };
      if (decision === 'authorise') {
        // Checked again: the mandate may have been registered at the gateway since the request.
        // Pending: refused, the amendment stays pending; registered: the new cap or end can never
        // apply to its token, so the amendment is withdrawn.
        const gateway = await this.gatewayRefusal(m, termsOf(m), a.newTerms, now);
        if (gateway?.final) {
          await this.finish(m, a, 'withdrawn', SYSTEM, NEEDS_NEW_REGISTRATION_NOTE, now);
          throw new RefusalKeepingWrites(gateway.error);
        }
        if (gateway) {
          throw gateway.error;
        }
        const t = a.newTerms;
        m.perPaymentCapPaise = t.per_payment_cap_paise;
        m.validUntil = new Date(t.valid_until);
        m.payeeAgentIds = t.payee_agent_ids;
        await this.mandates.update(m.id, {
          perPaymentCapPaise: m.perPaymentCapPaise,
          validUntil: m.validUntil,
          payeeAgentIds: m.payeeAgentIds,
        });
        await this.finish(m, a, 'authorised', person, null, now);
      } else {
        await this.finish(m, a, 'declined', person, null, now);
      }
      return a;
    });
  }

  /**
   * The gateway side of new terms, under the mandate's lock (docs/mandates.md "Amendments while
   * the gateway registration is pending"): while the registration after authorisation runs, no
   * change to the cap or validity (409 mandate_registration_pending, Retry-After); once the mandate
   * has an AutoPay token, no higher cap or later end than the token carries (409
   * amendment_needs_new_registration, `final`: waiting will not help). Changing only the sellers
   * is always allowed. Null when the new terms may apply.
   */
  private async gatewayRefusal(
    m: Mandate,
    oldTerms: MandateTerms,
    newTerms: MandateTerms,
    now: Date,
  ): Promise<{ error: AppError; final: boolean } | null> {
    if (LIMIT_TERMS.every((k) => sameTerm(k, oldTerms, newTerms))) {
      return null;
    }
    const state = await registrationStateOf(this.tx, m.id);
    const wait = registrationPendingRetryAfter(m, state, now, this.config.rail === 'gateway');
    if (wait !== null) {
      return { error: amendmentErrors.registrationPending(m.id, wait), final: false };
    }
    const loosens =
      newTerms.per_payment_cap_paise > oldTerms.per_payment_cap_paise ||
      newTerms.valid_until > oldTerms.valid_until;
    if (loosens && state.hasToken) {
      return { error: amendmentErrors.needsNewRegistration(), final: true };
    }
    return null;
  }

  /** Sweep: ends pending amendments past their expiry or whose mandate ended. */
  async endDue(limit = 50): Promise<number> {
    const due = await this.amendments.dueToEnd(this.clock.now(), limit);
    let n = 0;
    for (const { mandateId, id } of due) {
      try {
        n += await this.tx.run(async () => {
          const m = await this.mandates.lock(mandateId);
          const a = m ? await this.amendments.lock(mandateId, id) : null;
          const now = this.clock.now();
          const ended = m && a?.status === 'pending' ? this.endingOf(m, a, now) : null;
          if (!m || !a || !ended) {
            return 0;
          }
          await this.finish(m, a, ended.status, SYSTEM, ended.note, now);
          return 1;
        });
      } catch (err) {
        this.logger.warn(
          { amendment_id: id, err: (err as Error).message },
          'amendment sweep failed',
        );
      }
    }
    return n;
  }

  private endingOf(
    m: Mandate,
    a: MandateAmendment,
    now: Date,
  ): { status: 'expired' | 'withdrawn'; note: string } | null {
    const status = effectiveMandateStatus(m, now);
    if (status !== 'active') {
      return { status: 'withdrawn', note: `The mandate is ${status}` };
    }
    if (now >= a.expiresAt) {
      return { status: 'expired', note: 'Nobody answered in time; the mandate keeps its terms' };
    }
    return null;
  }

  /** Records the outcome on the amendment, the audit log and the chain; tells the buyer. */
  private async finish(
    m: Mandate,
    a: MandateAmendment,
    status: Exclude<AmendmentStatus, 'pending'>,
    actor: AuditActor,
    note: string | null,
    now: Date,
  ): Promise<void> {
    Object.assign(a, {
      status,
      decidedBy: actor.type === 'person' ? actor.id : null,
      decidedAt: now,
      decisionNote: note,
    });
    await this.amendments.update(a.id, {
      status,
      decidedBy: a.decidedBy,
      decidedAt: now,
      decisionNote: note,
    });
    await this.audit.record(m.workspaceId, actor, `mandate.amendment_${status}`, m.id, {
      amendment_id: a.id,
      old_terms: a.oldTerms,
      new_terms: a.newTerms,
      ...(note ? { note } : {}),
    });
    await this.chains.append(a.chainId, {
      type: `mandate.amendment_${status}`,
      mandate_id: m.id,
      amendment_id: a.id,
      old_terms: a.oldTerms,
      new_terms: a.newTerms,
      terms_in_force: termsOf(m),
      decided_by: { type: actor.type, id: actor.id },
      decided_at: now.toISOString(),
      note,
    });
    if (status === 'authorised' || status === 'declined') {
      await this.announce(a, AMENDMENT_EVENTS[status]);
    }
  }

  private async announce(a: MandateAmendment, type: string): Promise<void> {
    await this.outbox.add({
      workspaceId: a.workspaceId,
      agentId: a.buyerAgentId,
      type,
      subjectId: a.id,
      data: {
        amendment_id: a.id,
        mandate_id: a.mandateId,
        status: a.status,
        old_terms: a.oldTerms,
        new_terms: a.newTerms,
        changed: a.changed,
        reason: a.reason,
        authorization_url: this.authorizationUrl(a),
        expires_at: a.expiresAt.toISOString(),
        decided_at: a.decidedAt ? a.decidedAt.toISOString() : null,
      },
    });
  }

  /** The new terms: the mandate's, with what the body changes, validated against now. */
  private async newTerms(
    m: Mandate,
    body: CreateMandateAmendmentDto,
    now: Date,
  ): Promise<MandateTerms> {
    const t = termsOf(m);
    if (body.per_payment_cap_paise !== undefined) {
      t.per_payment_cap_paise = body.per_payment_cap_paise;
    }
    if (body.valid_until !== undefined) {
      const until = new Date(body.valid_until);
      if (until.getTime() <= now.getTime()) {
        throw amendmentErrors.invalid('$.valid_until', 'valid_until must be in the future');
      }
      if (until.getTime() <= m.validFrom.getTime()) {
        throw amendmentErrors.invalid('$.valid_until', 'valid_until must be after valid_from');
      }
      if (until.getTime() > now.getTime() + YEAR_MS) {
        throw amendmentErrors.invalid(
          '$.valid_until',
          'valid_until can be at most one year (365 days) from now',
        );
      }
      t.valid_until = until.toISOString();
    }
    if (body.payee_agent_ids !== undefined) {
      if (body.payee_agent_ids === null && m.kind === 'recurring') {
        throw amendmentErrors.invalid(
          '$.payee_agent_ids',
          'A recurring mandate names the sellers that may charge it: send a list',
        );
      }
      if (body.payee_agent_ids) {
        const found = new Map(
          (await this.agents.findByIds(body.payee_agent_ids)).map((x) => [x.id, x]),
        );
        body.payee_agent_ids.forEach((id, i) => {
          const x = found.get(id);
          if (!x || x.disabledAt || !canSell(x.role)) {
            throw amendmentErrors.invalid(`$.payee_agent_ids[${i}]`, `${id} is not a seller agent`);
          }
        });
      }
      t.payee_agent_ids = body.payee_agent_ids;
    }
    return t;
  }

  private async visibleMandate(caller: AmendmentCaller, mandateId: string): Promise<Mandate> {
    const m = await this.mandates.findInWorkspace(caller.workspaceId, mandateId);
    if (!m || (caller.kind === 'agent' && caller.id !== m.buyerAgentId)) {
      throw amendmentErrors.notFound(mandateId);
    }
    return m;
  }

  private authorizationUrl(a: MandateAmendment): string {
    return `${this.config.appUrl}/mandates/${a.mandateId}/amendments/${a.id}`;
  }

  toResponse(a: MandateAmendment): MandateAmendmentResponse {
    return {
      id: a.id,
      object: 'mandate_amendment',
      mandate_id: a.mandateId,
      status: a.status,
      old_terms: a.oldTerms,
      new_terms: a.newTerms,
      changed: a.changed,
      reason: a.reason,
      authorization_url: this.authorizationUrl(a),
      created_at: a.createdAt.toISOString(),
      expires_at: a.expiresAt.toISOString(),
      decided_at: a.decidedAt ? a.decidedAt.toISOString() : null,
      decision_note: a.decisionNote,
      receipt_chain: { id: a.chainId },
    };
  }
}
