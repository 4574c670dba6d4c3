import { Injectable, OnModuleInit } from '@nestjs/common';

import { AccountsService } from '../accounts/accounts.service';
import type { AuditActor } from '../common/audit';
import { Clock } from '../common/clock';
import { commonErrors } from '../common/errors/app-error';
import { Translator, translator } from '../common/i18n/catalogue';
import { Tx } from '../database/tx';
import { DelegatePaymentService } from '../delegate-payment/delegate-payment.service';
import { TokensService } from '../delegate-payment/tokens.service';
import { MandateViews } from '../mandates/mandate-views';
import { MandatesService } from '../mandates/mandates.service';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';
import { WaitingPayments } from '../payments/waiting-payments.service';
import { ProtocolKeysService } from '../protocol-keys/protocol-keys.service';
import { AppLayout } from '../web/app-layout.service';
import { AppReadModel } from '../web/app-read-model';
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
    private readonly intents: PaymentIntentRepository,
    private readonly waiting: WaitingPayments,
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

  async page(person: SignedInPerson, tr: Translator = translator('en')) {
    const ws = person.workspaceId;
    const [agents, keys, mandates, tokens] = await Promise.all([
      this.accounts.listAgents(ws, LIST_LIMIT),
      this.protocolKeys.list(ws, LIST_LIMIT),
      this.mandates.listForWorkspace(ws, LIST_LIMIT),
      this.delegatePayment.listLiveTokens(ws, LIST_LIMIT),
    ]);
    const agentName = new Map(agents.data.map((a) => [a.id, a.name]));
    const [mandateViews, used] = await Promise.all([
      this.mandateViews.describe(mandates.mandates, tr),
      this.intents.usedOnMandates(mandates.mandates.map((m) => m.id)),
    ]);
    return this.layout.page(
      person,
      tr.t('consent.title'),
      {
        ...splitKeys(
          keys.data.map((k) => ({
            id: k.id,
            name: keyName(k, tr),
            hint: k.hint,
            role: k.role,
            roleWord: tr.t(`consent.keys.role_${k.role}`),
            roleLabel: tr.t(`consent.keys.role_${k.role}_label`),
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
        tokens: await this.tokenViews(tokens, tr),
        agents: agents.data.map((a) => ({
          id: a.id,
          name: a.name,
          role: a.role,
          roleLabel: tr.t(`consent.agent_role.${a.role === 'buyer' ? 'buyer' : 'seller'}`),
        })),
      },
      'consent',
    );
  }

  /** A delegated token as a person reads it: the checkout it pays (seller, items, total), up to how much, until when. */
  private async tokenViews(
    tokens: Awaited<ReturnType<DelegatePaymentService['listLiveTokens']>>,
    tr: Translator,
  ) {
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
        expiresAt: tr.ist(t.expiresAt),
        expiresIn: tr.relative(t.expiresAt, now),
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
  async revokeConfirmPage(
    person: SignedInPerson,
    kind: RevokeKind,
    id: string,
    tr: Translator = translator('en'),
  ) {
    const ws = person.workspaceId;
    let subject: { heading: string; lines: string[]; consequence: string } | null = null;
    if (kind === 'mandates') {
      const mandate = await this.mandates.get(ws, id);
      const [view] = await this.mandateViews.describe([mandate], tr);
      if (view.revocable) {
        subject = {
          heading:
            view.description ?? tr.t('consent.revoke.mandate_heading', { agent: view.agentName }),
          lines: [
            tr.t('consent.revoke.may_pay', { payees: view.payees }),
            tr.t('consent.revoke.up_to_per_payment', { cap: tr.rupees(view.capPaise) }),
            tr.t('consent.revoke.valid_until', { when: view.validUntil }),
          ],
          consequence: tr.t('consent.revoke.mandate_consequence'),
        };
      }
    } else if (kind === 'tokens') {
      const token = (
        await this.tokenViews(await this.delegatePayment.listLiveTokens(ws, LIST_LIMIT), tr)
      ).find((t) => t.id === id);
      if (token) {
        subject = {
          heading: tr.t('consent.revoke.token_heading', { seller: token.merchant }),
          lines: [
            ...(token.items ? [tr.t('consent.revoke.for', { items: token.items })] : []),
            tr.t('consent.revoke.up_to', { amount: tr.rupees(token.maxAmountPaise) }),
            tr.t('consent.revoke.expires', { when: token.expiresAt }),
          ],
          consequence: tr.t(
            token.waitingIntentId
              ? 'consent.revoke.token_waiting'
              : 'consent.revoke.token_consequence',
          ),
        };
      }
    } else {
      const key = (await this.protocolKeys.list(ws, LIST_LIMIT)).data.find((k) => k.id === id);
      if (key && key.revoked_at === null) {
        subject = {
          heading: tr.t('consent.revoke.key_heading', { name: keyName(key, tr) }),
          lines: [
            tr.t('consent.revoke.key_hint', { hint: key.hint }),
            tr.t('consent.revoke.key_role', { role: tr.t(`consent.keys.role_${key.role}`) }),
          ],
          consequence: tr.t('consent.revoke.key_consequence'),
        };
      }
    }
    if (!subject) {
      return null;
    }
    return this.layout.page(person, tr.t('consent.revoke.title'), { kind, id, subject }, 'consent');
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
        await this.waiting.declineWaitingOn(
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
        const waiting = await this.waiting.waitingOn({ tokenId: id });
        // Declined here when its source is free; otherwise whoever holds the source (an approval
        // being decided re-checks the token, now revoked) or the sweep declines it.
        await this.waiting.declineWaitingOn(
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

/** A key's name; the one the service gives a key issued without a name ("buyer key") in the page's language. */
function keyName(k: { name: string; role: string }, tr: Translator): string {
  return k.name === `${k.role} key` ? tr.t(`consent.keys.default_name_${k.role}`) : k.name;
}
