import { Injectable, OnModuleInit } from '@nestjs/common';

import { AccountsService } from '../accounts/accounts.service';
import type { AuditActor } from '../common/audit';
import { Clock } from '../common/clock';
import { commonErrors } from '../common/errors/app-error';
import { formatRupees } from '../common/money';
import { Tx } from '../database/tx';
import { DelegatePaymentService } from '../delegate-payment/delegate-payment.service';
import { TokensService } from '../delegate-payment/tokens.service';
import { formatIst, MandateViews } from '../mandates/mandate-views';
import { MandatesService } from '../mandates/mandates.service';
import { PaymentsService } from '../payments/payments.service';
import { ProtocolKeysService } from '../protocol-keys/protocol-keys.service';
import { AppLayout } from '../web/app-layout.service';
import { AppReadModel } from '../web/app-read-model';
import { relativeTo } from '../web/local-time';
import type { SignedInPerson } from '../web/signed-in-person';

const LIST_LIMIT = 100;

/** What can be revoked in the consent centre (the path segment of its form). */
export type RevokeKind = 'protocol-keys' | 'mandates' | 'tokens';
const actor = (p: SignedInPerson): AuditActor => ({ type: 'person', id: p.personId });

export interface IssueKeyInput {
  role: string;
  agentId: string;
  name?: string;
  publicKeyPem?: string;
}

/**
 * The consent centre: everything a person has allowed agents to do (protocol keys, mandates,
 * live delegated tokens), each revocable in one tap, plus issuing protocol keys (docs/mandates.md "Mandates,
 * approvals and the consent centre").
 * Revocations are plain row updates that every later request re-reads, so they take effect on
 * the very next request.
 */
@Injectable()
export class ConsentService implements OnModuleInit {
  constructor(
    private readonly accounts: AccountsService,
    private readonly protocolKeys: ProtocolKeysService,
    private readonly mandates: MandatesService,
    private readonly mandateViews: MandateViews,
    private readonly tokens: TokensService,
    private readonly delegatePayment: DelegatePaymentService,
    private readonly payments: PaymentsService,
    private readonly tx: Tx,
    private readonly layout: AppLayout,
    private readonly read: AppReadModel,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.layout.registerNav({
      key: 'consent',
      label: 'app.nav.consent',
      href: '/app/consent',
      order: 20,
    });
  }

  async page(person: SignedInPerson) {
    const ws = person.workspaceId;
    const [agents, keys, mandates, tokens] = await Promise.all([
      this.accounts.listAgents(ws, LIST_LIMIT),
      this.protocolKeys.list(ws, LIST_LIMIT),
      this.mandates.listForWorkspace(ws, LIST_LIMIT),
      this.delegatePayment.listLiveTokens(ws, LIST_LIMIT),
    ]);
    const agentName = new Map(agents.data.map((a) => [a.id, a.name]));
    const [mandateViews, used] = await Promise.all([
      this.mandateViews.describe(mandates.mandates),
      this.payments.usedOnMandates(mandates.mandates.map((m) => m.id)),
    ]);
    return this.layout.page(
      person,
      'Consent centre',
      {
        ...splitKeys(
          keys.data.map((k) => ({
            id: k.id,
            name: k.name,
            hint: k.hint,
            role: k.role,
            roleLabel:
              k.role === 'buyer'
                ? 'buyer: may ask for payment tokens'
                : 'merchant: may run checkouts',
            agent: agentName.get(k.agent_id) ?? k.agent_id,
            agentId: k.agent_id,
            signed: k.public_key_alg !== null,
            active: k.revoked_at === null,
          })),
        ),
        moreProtocolKeys: keys.has_more,
        // Active and waiting first; revoked, declined and expired folded away on the page.
        ...splitMandates(mandateViews.map((m) => ({ ...m, usedPaise: used.get(m.id) ?? 0 }))),
        moreMandates: mandates.hasMore,
        tokens: await this.tokenViews(tokens),
        agents: agents.data.map((a) => ({ id: a.id, name: a.name, role: a.role })),
      },
      'consent',
    );
  }

  /** A delegated token as a person reads it: the checkout it pays (seller, items, total), up to how much, until when. */
  private async tokenViews(tokens: Awaited<ReturnType<DelegatePaymentService['listLiveTokens']>>) {
    const sessions = await this.read.checkoutSessions(tokens.map((t) => t.checkoutSessionId));
    const now = this.clock.now();
    return tokens.map((t) => {
      const session = sessions.get(t.checkoutSessionId);
      const lines = session?.lineItems ?? [];
      return {
        id: t.id,
        merchant: t.merchantName,
        merchantAgentId: t.merchantAgentId,
        maxAmountPaise: t.maxAmountPaise,
        expiresAt: formatIst(t.expiresAt),
        expiresIn: relativeTo(t.expiresAt, now),
        checkoutSessionId: t.checkoutSessionId,
        items: lines.map((l) => `${l.quantity} × ${l.name}`).join(', '),
        sessionTotalPaise: lines.reduce((sum, l) => sum + l.unit_paise * l.quantity, 0),
        hasSession: session !== undefined,
        mandateId: t.mandateId,
        waitingIntentId: t.waitingIntentId,
      };
    });
  }

  /**
   * The no-JavaScript confirmation step before a revocation: what will stop and what follows
   * from it. Null when there is nothing left to revoke (already revoked, ended or unknown).
   */
  async revokeConfirmPage(person: SignedInPerson, kind: RevokeKind, id: string) {
    const ws = person.workspaceId;
    let subject: { heading: string; lines: string[]; consequence: string } | null = null;
    if (kind === 'mandates') {
      const mandate = await this.mandates.get(ws, id);
      const [view] = await this.mandateViews.describe([mandate]);
      if (view.revocable) {
        subject = {
          heading: `Mandate for ${view.buyerAgentName}`,
          lines: [
            `May pay: ${view.payees}`,
            `Up to ${formatRupees(view.capPaise)} per payment`,
            `Valid until ${view.validUntil}`,
          ],
          consequence:
            'Your agent will no longer be able to pay from this mandate, and payments waiting for your approval on it will be declined. This cannot be undone; a new mandate needs your authorisation again.',
        };
      }
    } else if (kind === 'tokens') {
      const token = (
        await this.tokenViews(await this.delegatePayment.listLiveTokens(ws, LIST_LIMIT))
      ).find((t) => t.id === id);
      if (token) {
        subject = {
          heading: `Payment token for ${token.merchant}`,
          lines: [
            ...(token.items ? [`For: ${token.items}`] : []),
            `Up to ${formatRupees(token.maxAmountPaise)}`,
            `Expires ${token.expiresAt}`,
          ],
          consequence: token.waitingIntentId
            ? 'The payment waiting for your approval on this token will be declined.'
            : 'The seller will not be able to take this payment with this token.',
        };
      }
    } else {
      const key = (await this.protocolKeys.list(ws, LIST_LIMIT)).data.find((k) => k.id === id);
      if (key && key.revoked_at === null) {
        subject = {
          heading: `Protocol key ${key.name}`,
          lines: [`Key ${key.hint}`, `Role: ${key.role}`],
          consequence:
            'Every request made with this key is refused from the very next one. Software using it stops working until it gets a new key.',
        };
      }
    }
    if (!subject) {
      return null;
    }
    return this.layout.page(person, 'Confirm revocation', { kind, id, subject }, 'consent');
  }

  /** The key's secret appears in this response only (the page is no-store; the DB keeps a hash). */
  async issueProtocolKey(person: SignedInPerson, input: IssueKeyInput) {
    if (input.role !== 'merchant' && input.role !== 'buyer') {
      throw commonErrors.invalid('$.role', 'Choose merchant or buyer');
    }
    const name = input.name?.trim();
    if (name !== undefined && name.length > 100) {
      throw commonErrors.invalid('$.name', 'Key name can be at most 100 characters');
    }
    const pem = input.publicKeyPem?.trim();
    const key = await this.protocolKeys.create(
      person.workspaceId,
      {
        role: input.role,
        agentId: input.agentId,
        name: name || undefined,
        publicKey: pem || undefined,
      },
      actor(person),
    );
    return this.layout.page(person, 'Protocol key issued', { protocolKey: key }, 'consent');
  }

  async revokeProtocolKey(person: SignedInPerson, id: string): Promise<void> {
    await this.protocolKeys.revoke(person.workspaceId, id, actor(person));
  }

  /** Revokes the mandate and, in the same transaction, declines the payments waiting on it. */
  async revokeMandate(person: SignedInPerson, id: string): Promise<void> {
    await this.tx.run(async () => {
      const mandate = await this.mandates.revoke(person.workspaceId, id, actor(person));
      if (mandate.status === 'revoked') {
        await this.payments.declineWaitingOn(
          { mandateId: id },
          { code: 'mandate_not_active', reason: `Mandate ${id} was revoked` },
        );
      }
    });
  }

  /** Revokes the token and declines the payment that waits for approval on it, if any. */
  async revokeToken(person: SignedInPerson, id: string): Promise<void> {
    await this.tx.run(() =>
      this.tokens.revoke(person.workspaceId, id, person.personId, async () => {
        const waiting = await this.payments.waitingOn({ tokenId: id });
        // Declined here when its source is free; otherwise whoever holds the source (an approval
        // being decided re-checks the token, now revoked) or the sweep declines it.
        await this.payments.declineWaitingOn(
          { tokenId: id },
          { code: 'token_revoked', reason: `Delegated token ${id} was revoked` },
        );
        return waiting.length > 0;
      }),
    );
  }
}

/** Keys still in force, and the revoked ones (shown folded). */
function splitKeys<K extends { active: boolean }>(keys: K[]) {
  return { protocolKeys: keys.filter((k) => k.active), revokedKeys: keys.filter((k) => !k.active) };
}

/** Mandates in force or waiting for the person, and the ended ones (shown folded). */
function splitMandates<M extends { pending: boolean; revocable: boolean }>(mandates: M[]) {
  const live = (m: M) => m.pending || m.revocable;
  return { mandates: mandates.filter(live), endedMandates: mandates.filter((m) => !live(m)) };
}
