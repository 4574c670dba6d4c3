import { Inject, Injectable } from '@nestjs/common';

import { AccountsService } from '../accounts/accounts.service';
import { canBuy } from '../accounts/entities/agent.entity';
import { ApprovalsService } from '../approvals/approvals.service';
import type { AuditActor } from '../common/audit';
import { Clock } from '../common/clock';
import { commonErrors } from '../common/errors/app-error';
import { hasKey, Translator } from '../common/i18n/catalogue';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';
import { ProtocolKeysService } from '../protocol-keys/protocol-keys.service';
import { AppLayout } from './app-layout.service';
import { AppReadModel } from './app-read-model';
import { ApprovalCards, itemsOf, receiptHrefOf } from './approval-cards';
import type { SignedInPerson } from './signed-in-person';

const actor = (p: SignedInPerson): AuditActor => ({ type: 'person', id: p.personId });

/** Badge tone of each payment status; the words are app.payment_status.<status>. */
const PAYMENT_TONE: Record<string, string> = {
  settled: 'good',
  processing: 'warn',
  requires_approval: 'warn',
  declined: 'bad',
  failed: 'bad',
};

/** Badge tone of each refund status; the words are app.refund_status.<status>. */
const REFUND_TONE: Record<string, string> = {
  succeeded: 'good',
  pending_approval: 'warn',
  denied: 'bad',
  expired: 'bad',
  failed: 'bad',
};

/** A status in words: its own key when the catalogue has one, else the area's "other". */
function statusWords(tr: Translator, area: string, status: string): string {
  const key = `app.${area}.${status}`;
  return tr.t(hasKey(key) ? key : `app.${area}.other`);
}

/**
 * Why a payment did not go through, in the page's language: by its decline code; the service's
 * English reason only on an English page when the code has no words yet.
 */
function declineWords(tr: Translator, code: string | null, reason: string | null): string | null {
  const key = `app.decline.${code ?? ''}`;
  if (code && hasKey(key)) {
    return tr.t(key);
  }
  return tr.lang === 'en' ? reason : null;
}

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
    private readonly intents: PaymentIntentRepository,
    private readonly clock: Clock,
    private readonly protocolKeys: ProtocolKeysService,
    private readonly read: AppReadModel,
    private readonly layout: AppLayout,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async homePage(person: SignedInPerson, tr: Translator) {
    const ws = person.workspaceId;
    const [pending, agents, intents, refunds] = await Promise.all([
      this.approvals.list(ws, 'pending'),
      this.accounts.listAgents(ws, 100),
      this.intents.recentForBuyerWorkspace(ws, 10),
      this.read.recentRefundsToWorkspace(ws, 5),
    ]);
    const buyers = agents.data.filter((a) => canBuy(a.role));
    const cap = this.config.dailyCapPaise;
    const spend = [];
    for (const b of buyers) {
      const committed = await this.intents.spentOn(b.id, this.clock.now(), null);
      spend.push({
        name: b.name,
        committedPaise: committed,
        leftPaise: Math.max(0, cap - committed),
        capPaise: cap,
        meter: meterClass(committed, cap),
      });
    }
    const refundIntents = await this.intents.findByIds(refunds.map((r) => r.intentId));
    const all = [...intents, ...refundIntents];
    const [sessions, quotes, names] = await Promise.all([
      this.read.checkoutSessions(
        all.filter((i) => i.sourceKind === 'checkout').map((i) => i.sourceId),
      ),
      this.read.quotes(all.filter((i) => i.sourceKind !== 'checkout').map((i) => i.sourceId)),
      this.read.agentNames(all.flatMap((i) => [i.sellerAgentId, i.buyerAgentId])),
    ]);
    const byId = new Map(all.map((i) => [i.id, i]));
    const waiting = await this.cards.build(pending.slice(0, 3), tr);
    return this.layout.page(
      person,
      tr.t('app.home.title'),
      {
        waiting,
        waitingCount: pending.length,
        moreWaiting: pending.length > waiting.length,
        spend,
        dailyCapPaise: cap,
        payments: intents.map((i) => {
          const items = itemsOf(i, sessions, quotes);
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
            statusLabel: statusWords(tr, 'payment_status', i.status),
            tone: PAYMENT_TONE[i.status] ?? '',
            reason:
              i.status === 'declined' || i.status === 'failed'
                ? declineWords(tr, i.declineCode, i.declineReason)
                : null,
            at: tr.ist(i.settledAt ?? i.createdAt),
            receiptHref: receiptHrefOf(i, sessions.get(i.sourceId)),
          };
        }),
        refunds: refunds.map((r) => {
          const intent = byId.get(r.intentId);
          return {
            id: r.id,
            seller: names.get(r.sellerAgentId) ?? r.sellerAgentId,
            amountPaise: r.amountPaise,
            reason: r.reason,
            statusLabel: statusWords(tr, 'refund_status', r.status),
            tone: REFUND_TONE[r.status] ?? '',
            at: tr.ist(r.succeededAt ?? r.createdAt),
            receiptHref: intent ? receiptHrefOf(intent, sessions.get(intent.sourceId)) : null,
          };
        }),
      },
      'home',
    );
  }

  async developersPage(person: SignedInPerson, tr: Translator) {
    const [agents, apiKeys, keys] = await Promise.all([
      this.accounts.listAgents(person.workspaceId, 100),
      this.accounts.listApiKeys(person.workspaceId, 100),
      this.protocolKeys.list(person.workspaceId, 100),
    ]);
    const agentName = new Map(agents.data.map((a) => [a.id, a.name]));
    return this.layout.page(
      person,
      tr.t('app.developers.title'),
      {
        agents: agents.data.map((a) => ({
          ...a,
          roleLabel: tr.t(`app.role.${a.role}`),
          created: tr.ist(a.created_at),
        })),
        apiKeys: apiKeys.data.map((k) => ({
          ...k,
          active: k.revoked_at === null,
          created: tr.ist(k.created_at),
          revoked: k.revoked_at ? tr.ist(k.revoked_at) : null,
        })),
        protocolKeys: keys.data.map((k) => ({
          id: k.id,
          name: k.name,
          hint: k.hint,
          roleLabel: tr.t(k.role === 'merchant' ? 'app.role.merchant' : 'app.role.buyer_key'),
          agent: agentName.get(k.agent_id) ?? null,
          agentId: k.agent_id,
          active: k.revoked_at === null,
          created: tr.ist(k.created_at),
        })),
        moreAgents: agents.has_more,
        moreApiKeys: apiKeys.has_more,
      },
      'developers',
    );
  }

  /** The response is the only place the secret ever appears (the page is no-store). */
  async createApiKey(person: SignedInPerson, rawName: string, tr: Translator) {
    const name = rawName.trim();
    if (name.length < 1 || name.length > 100) {
      // $.key_name: the error page's words are errors.field.key_name (src/web/error-words.ts).
      throw commonErrors.invalid('$.key_name', 'Key name must be 1 to 100 characters');
    }
    const key = await this.accounts.createApiKey(person.workspaceId, name, actor(person));
    return this.layout.page(person, tr.t('app.keys.api_title'), { apiKey: key }, 'developers');
  }

  async revokeApiKey(person: SignedInPerson, id: string): Promise<void> {
    await this.accounts.revokeApiKey(person.workspaceId, id, actor(person));
  }
}
