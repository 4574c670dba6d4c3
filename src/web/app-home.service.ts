import { Inject, Injectable } from '@nestjs/common';

import { AccountsService } from '../accounts/accounts.service';
import { canBuy } from '../accounts/entities/agent.entity';
import { ApprovalsService } from '../approvals/approvals.service';
import type { AuditActor } from '../common/audit';
import { commonErrors } from '../common/errors/app-error';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { PaymentsService } from '../payments/payments.service';
import { ProtocolKeysService } from '../protocol-keys/protocol-keys.service';
import { AppLayout } from './app-layout.service';
import { AppReadModel } from './app-read-model';
import { ApprovalCards, itemsOf, receiptHrefOf } from './approval-cards';
import { formatIst } from './local-time';
import type { SignedInPerson } from './signed-in-person';

const actor = (p: SignedInPerson): AuditActor => ({ type: 'person', id: p.personId });

const PAYMENT_STATUS: Record<string, { label: string; tone: string }> = {
  settled: { label: 'Paid', tone: 'good' },
  processing: { label: 'Processing', tone: 'warn' },
  requires_approval: { label: 'Waiting for you', tone: 'warn' },
  declined: { label: 'Declined', tone: 'bad' },
  failed: { label: 'Failed', tone: 'bad' },
};

const REFUND_STATUS: Record<string, { label: string; tone: string }> = {
  succeeded: { label: 'Refunded', tone: 'good' },
  pending_approval: { label: 'Waiting for you', tone: 'warn' },
  denied: { label: 'Declined by you', tone: 'bad' },
  expired: { label: 'Expired', tone: 'bad' },
  failed: { label: 'Failed', tone: 'bad' },
};

/** A 0–100 % bar in 10 % steps (a class, since the CSP allows no inline style). */
function meterClass(used: number, cap: number): string {
  if (cap <= 0 || used >= cap) {
    return 'w100';
  }
  return `w${Math.min(90, Math.round((used / cap) * 10) * 10)}`;
}

/**
 * The signed-in home (a person's overview: approvals waiting, today's spend against the daily
 * cap, recent payments and refunds with their receipts) and the developer console (agents, API
 * keys, protocol keys).
 */
@Injectable()
export class AppHomeService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly approvals: ApprovalsService,
    private readonly cards: ApprovalCards,
    private readonly payments: PaymentsService,
    private readonly protocolKeys: ProtocolKeysService,
    private readonly read: AppReadModel,
    private readonly layout: AppLayout,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async homePage(person: SignedInPerson) {
    const ws = person.workspaceId;
    const [pending, agents, intents, refunds] = await Promise.all([
      this.approvals.list(ws, 'pending'),
      this.accounts.listAgents(ws, 100),
      this.payments.recentForBuyerWorkspace(ws, 10),
      this.read.recentRefundsToWorkspace(ws, 5),
    ]);
    const buyers = agents.data.filter((a) => canBuy(a.role));
    const cap = this.config.dailyCapPaise;
    const spend = [];
    for (const b of buyers) {
      const committed = await this.payments.committedToday(b.id);
      spend.push({
        name: b.name,
        committedPaise: committed,
        leftPaise: Math.max(0, cap - committed),
        capPaise: cap,
        meter: meterClass(committed, cap),
      });
    }
    const refundIntents = await this.payments.intentsByIds(refunds.map((r) => r.intentId));
    const all = [...intents, ...refundIntents];
    const [sessions, quotes, names] = await Promise.all([
      this.read.checkoutSessions(
        all.filter((i) => i.sourceKind === 'checkout').map((i) => i.sourceId),
      ),
      this.read.quotes(all.filter((i) => i.sourceKind !== 'checkout').map((i) => i.sourceId)),
      this.read.agentNames(all.flatMap((i) => [i.sellerAgentId, i.buyerAgentId])),
    ]);
    const byId = new Map(all.map((i) => [i.id, i]));
    const waiting = await this.cards.build(pending.slice(0, 3));
    return this.layout.page(
      person,
      'Home',
      {
        waiting,
        waitingCount: pending.length,
        moreWaiting: pending.length > waiting.length,
        spend,
        dailyCapPaise: cap,
        payments: intents.map((i) => {
          const items = itemsOf(i, sessions, quotes);
          const status = PAYMENT_STATUS[i.status] ?? { label: i.status, tone: '' };
          return {
            id: i.id,
            what:
              items.length > 0
                ? items.map((l) => `${l.quantity} × ${l.name}`).join(', ')
                : i.description,
            seller: names.get(i.sellerAgentId) ?? i.sellerAgentId,
            buyer: names.get(i.buyerAgentId) ?? i.buyerAgentId,
            amountPaise: i.amountPaise,
            refundedPaise: i.amountRefundedPaise,
            statusLabel: status.label,
            tone: status.tone,
            reason: i.status === 'declined' || i.status === 'failed' ? i.declineReason : null,
            at: formatIst(i.settledAt ?? i.createdAt),
            receiptHref: receiptHrefOf(i, sessions.get(i.sourceId)),
          };
        }),
        refunds: refunds.map((r) => {
          const intent = byId.get(r.intentId);
          const status = REFUND_STATUS[r.status] ?? { label: r.status, tone: '' };
          return {
            id: r.id,
            seller: names.get(r.sellerAgentId) ?? r.sellerAgentId,
            amountPaise: r.amountPaise,
            reason: r.reason,
            statusLabel: status.label,
            tone: status.tone,
            at: formatIst(r.succeededAt ?? r.createdAt),
            receiptHref: intent ? receiptHrefOf(intent, sessions.get(intent.sourceId)) : null,
          };
        }),
      },
      'home',
    );
  }

  async developersPage(person: SignedInPerson) {
    const [agents, apiKeys, keys] = await Promise.all([
      this.accounts.listAgents(person.workspaceId, 100),
      this.accounts.listApiKeys(person.workspaceId, 100),
      this.protocolKeys.list(person.workspaceId, 100),
    ]);
    const agentName = new Map(agents.data.map((a) => [a.id, a.name]));
    return this.layout.page(
      person,
      'Developers',
      {
        agents: agents.data.map((a) => ({ ...a, created: formatIst(a.created_at) })),
        apiKeys: apiKeys.data.map((k) => ({
          ...k,
          active: k.revoked_at === null,
          created: formatIst(k.created_at),
          revoked: k.revoked_at ? formatIst(k.revoked_at) : null,
        })),
        protocolKeys: keys.data.map((k) => ({
          id: k.id,
          name: k.name,
          hint: k.hint,
          role: k.role,
          agent: agentName.get(k.agent_id) ?? k.agent_id,
          active: k.revoked_at === null,
          created: formatIst(k.created_at),
        })),
        moreAgents: agents.has_more,
        moreApiKeys: apiKeys.has_more,
      },
      'developers',
    );
  }

  /** The response is the only place the secret ever appears (the page is no-store). */
  async createApiKey(person: SignedInPerson, rawName: string) {
    const name = rawName.trim();
    if (name.length < 1 || name.length > 100) {
      throw commonErrors.invalid('$.name', 'Key name must be 1 to 100 characters');
    }
    const key = await this.accounts.createApiKey(person.workspaceId, name, actor(person));
    return this.layout.page(person, 'API key created', { apiKey: key }, 'developers');
  }

  async revokeApiKey(person: SignedInPerson, id: string): Promise<void> {
    await this.accounts.revokeApiKey(person.workspaceId, id, actor(person));
  }
}
