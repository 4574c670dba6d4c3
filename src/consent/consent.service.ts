import { Injectable, OnModuleInit } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import type { AuditActor } from '../common/audit';
import { commonErrors } from '../common/errors/app-error';
import { DelegatePaymentService } from '../delegate-payment/delegate-payment.service';
import { TokensService } from '../delegate-payment/tokens.service';
import { formatIst, MandateViews } from '../mandates/mandate-views';
import { MandatesService } from '../mandates/mandates.service';
import { Tx } from '../database/tx';
import { PaymentsService } from '../payments/payments.service';
import { ProtocolKeysService } from '../protocol-keys/protocol-keys.service';
import { AppLayout } from '../web/app-layout.service';
import type { SignedInPerson } from '../web/signed-in-person';

const LIST_LIMIT = 100;
const actor = (p: SignedInPerson): AuditActor => ({ type: 'person', id: p.personId });

export interface IssueKeyInput {
  role: string;
  agentId: string;
  name?: string;
  publicKeyPem?: string;
}

/**
 * The consent centre: everything a person has allowed agents to do (protocol keys, mandates,
 * live delegated tokens), each revocable in one tap, plus issuing protocol keys (README "Mandates,
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
  ) {}

  onModuleInit(): void {
    this.layout.registerNav({
      key: 'consent',
      label: 'Consent centre',
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
    return this.layout.page(person, 'Consent centre', {
      protocolKeys: keys.data.map((k) => ({
        id: k.id,
        name: k.name,
        hint: k.hint,
        role: k.role,
        agent: agentName.get(k.agent_id) ?? k.agent_id,
        agentId: k.agent_id,
        signed: k.public_key_alg !== null,
        active: k.revoked_at === null,
      })),
      moreProtocolKeys: keys.has_more,
      mandates: await this.mandateViews.describe(mandates.mandates),
      moreMandates: mandates.hasMore,
      tokens: tokens.map((t) => ({
        id: t.id,
        merchant: `${t.merchantName} (${t.merchantAgentId})`,
        maxAmountPaise: t.maxAmountPaise,
        expiresAt: formatIst(t.expiresAt),
        checkoutSessionId: t.checkoutSessionId,
        mandateId: t.mandateId,
        waitingIntentId: t.waitingIntentId,
      })),
      agents: agents.data.map((a) => ({ id: a.id, name: a.name, role: a.role })),
    });
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
    return this.layout.page(person, 'Protocol key issued', { protocolKey: key });
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
