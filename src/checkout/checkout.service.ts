import { Inject, Injectable, OnModuleInit } from '@nestjs/common';

import { AccountsService } from '../accounts/accounts.service';
import { CLOSED_SELLER, EndedForClosure, PartyClosure } from '../accounts/party-closure.service';
import { AuditLog } from '../common/audit';
import type { ProtocolKeyPrincipal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { commonErrors } from '../common/errors/app-error';
import { newId } from '../common/ids';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { Tx } from '../database/tx';
import { sellerRefusal } from '../payments/party-gate';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';
import { WaitingPayments } from '../payments/waiting-payments.service';
import { SellerService } from '../seller/seller.service';
import { checkoutErrors } from './checkout.errors';
import { applyFulfillmentDetails, parseCancelBody } from './checkout-input';
import {
  mergeItems,
  OfferFacts,
  priceLines,
  wantedFromStored,
  WantedLine,
} from './checkout-pricing';
import { CheckoutSession, StoredMessage } from './checkout-session.entity';
import { DIGITAL_OPTION_ID, toAcpSession } from './checkout-session.mapper';
import { CheckoutSessionRepository } from './checkout-session.repository';
import { canCancel, canUpdate, effectiveStatus } from './checkout-session.state';
import type { SelectedFulfillmentOptionDto } from './dto/checkout-request.parts';
import type { AcpCheckoutSession } from './dto/checkout-session.response';
import type { CreateCheckoutSessionDto } from './dto/create-checkout-session.dto';
import type { UpdateCheckoutSessionDto } from './dto/update-checkout-session.dto';

/**
 * ACP checkout sessions (docs/acp.md §4; docs/architecture.md "State machines"): create, update,
 * retrieve and cancel. Completion is CheckoutCompletionService. A merchant key sees only sessions
 * of the seller agent it is bound to; any other session id is 404, exactly like an unknown one.
 */
@Injectable()
export class CheckoutService implements OnModuleInit {
  constructor(
    private readonly tx: Tx,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly repo: CheckoutSessionRepository,
    private readonly listings: SellerService,
    private readonly accounts: AccountsService,
    private readonly intents: PaymentIntentRepository,
    private readonly waiting: WaitingPayments,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly closure: PartyClosure,
  ) {}

  onModuleInit(): void {
    this.closure.register('checkout-sessions', 30, (w) =>
      this.cancelForClosure(w.workspaceId, w.now),
    );
  }

  /**
   * A seller workspace closes (PartyClosure, docs/architecture.md "Party lifecycle"): its sessions
   * that could still be paid are canceled, a payment waiting for a person already declined (the
   * waiting-payments step runs first), with a message saying why. The agent platform that holds a
   * session reads it there (no workspace of ours to tell by event).
   */
  private async cancelForClosure(workspaceId: string, now: Date): Promise<EndedForClosure[]> {
    const ended: EndedForClosure[] = [];
    for (const id of await this.repo.liveOfWorkspace(workspaceId)) {
      const session = await this.repo.lockById(id);
      if (!session || !canCancel(effectiveStatus(session, now))) {
        continue;
      }
      if (session.status === 'pending_approval' && session.intentId) {
        await this.waiting.cancelPending(session.intentId, CLOSED_SELLER.reason);
      }
      Object.assign(session, {
        status: 'canceled',
        canceledAt: now,
        updatedAt: now,
        messages: [
          {
            type: 'error',
            severity: 'high',
            code: CLOSED_SELLER.code,
            content_type: 'plain',
            content: 'The seller closed their account; this checkout session was canceled.',
          },
        ],
      });
      await this.repo.save(session);
      await this.audit.record(
        workspaceId,
        { type: 'system', id: 'lifecycle' },
        'checkout.canceled',
        id,
        { reason_code: CLOSED_SELLER.code },
      );
      ended.push({ kind: 'checkout_session', id, counterparty: null, words: CLOSED_SELLER.reason });
    }
    return ended;
  }

  async createSession(
    caller: ProtocolKeyPrincipal,
    body: CreateCheckoutSessionDto,
  ): Promise<AcpCheckoutSession> {
    return this.tx.run(async () => {
      const now = this.clock.now();
      const wanted = mergeItems(body.line_items);
      const seller = await this.listings.sellerWithOffers(
        caller.workspaceId,
        caller.agentId,
        wanted.map((w) => w.sku),
      );
      if (!seller) {
        throw commonErrors.notFound('agent', caller.agentId);
      }
      // The lifecycle gate's seller side, from the same statement (docs/architecture.md "Party
      // lifecycle"): a suspended seller offers no new session; nothing is written.
      const refusal = sellerRefusal(seller.party);
      if (refusal) {
        throw refusal;
      }
      const sellerName = seller.name;
      const priced = priceLines(wanted, knownOffers(seller.offers, wanted), [], sellerName);
      const session = Object.assign(new CheckoutSession(), {
        id: newId('cs'),
        workspaceId: caller.workspaceId,
        sellerAgentId: caller.agentId,
        protocolKeyId: caller.id,
        status: priced.status,
        currency: 'inr',
        lineItems: priced.lines,
        buyer: body.buyer ? { ...body.buyer } : null,
        fulfillmentDetails: applyFulfillmentDetails(null, body.fulfillment_details),
        messages: [...priced.messages, ...discountWarnings(body)],
        intentId: null,
        orderId: null,
        intentTrace: null,
        createdAt: now,
        updatedAt: now,
        expiresAt: new Date(now.getTime() + this.config.checkoutSessionTtlSeconds * 1000),
        completedAt: null,
        canceledAt: null,
      } satisfies CheckoutSession);
      // Nothing reads it back in this transaction: written with the commit's one statement.
      await this.repo.insertAtCommit(session);
      await this.audit.record(
        caller.workspaceId,
        { type: 'protocol_key', id: caller.id },
        'checkout.created',
        session.id,
        {
          status: session.status,
        },
      );
      return this.present(session, sellerName);
    });
  }

  async updateSession(
    caller: ProtocolKeyPrincipal,
    id: string,
    body: UpdateCheckoutSessionDto,
  ): Promise<AcpCheckoutSession> {
    return this.tx.run(async () => {
      const session = await this.lockVisible(caller, id);
      const now = this.clock.now();
      const status = effectiveStatus(session, now);
      if (!canUpdate(status)) {
        throw checkoutErrors.invalidState(id, status, 'updated');
      }
      const sellerName = await this.sellerName(session.workspaceId, session.sellerAgentId);
      const wanted = body.line_items
        ? mergeItems(body.line_items)
        : wantedFromStored(session.lineItems);
      const priced = priceLines(
        wanted,
        await this.offersFor(session.sellerAgentId, wanted),
        session.lineItems,
        sellerName,
      );
      if (body.selected_fulfillment_options) {
        checkSelection(body.selected_fulfillment_options, priced.lines);
      }
      Object.assign(session, {
        status: priced.status,
        lineItems: priced.lines,
        buyer: body.buyer ? { ...body.buyer } : session.buyer,
        fulfillmentDetails: applyFulfillmentDetails(
          session.fulfillmentDetails,
          body.fulfillment_details,
        ),
        // Messages describe the current state: an earlier payment_declined goes once the session changes.
        messages: [...priced.messages, ...discountWarnings(body)],
        updatedAt: now,
      });
      await this.repo.save(session);
      return this.present(session, sellerName);
    });
  }

  async getSession(caller: ProtocolKeyPrincipal, id: string): Promise<AcpCheckoutSession> {
    const session = await this.repo.findById(id);
    if (!session || session.sellerAgentId !== caller.agentId) {
      throw checkoutErrors.notFound(id);
    }
    if (effectiveStatus(session, this.clock.now()) === 'expired' && session.status !== 'expired') {
      if (await this.repo.expireIfDue(id, this.clock.now())) {
        Object.assign(session, { status: 'expired', updatedAt: session.expiresAt });
      }
    }
    return this.present(session);
  }

  /**
   * Cancel (docs/acp.md §4): any state but completed/canceled; a payment awaiting approval is
   * withdrawn. The intent trace never makes it fail: parseCancelBody cuts or drops what is out of
   * bounds and never throws.
   */
  async cancelSession(
    caller: ProtocolKeyPrincipal,
    id: string,
    rawBody: unknown,
  ): Promise<AcpCheckoutSession> {
    const trace = parseCancelBody(rawBody);
    return this.tx.run(async () => {
      const session = await this.lockVisible(caller, id);
      const now = this.clock.now();
      const status = effectiveStatus(session, now);
      if (!canCancel(status)) {
        throw checkoutErrors.notCancelable(id, status);
      }
      if (status === 'pending_approval' && session.intentId) {
        await this.waiting.cancelPending(session.intentId);
      }
      Object.assign(session, {
        status: 'canceled',
        canceledAt: now,
        updatedAt: now,
        // Write-only and stored once; never returned (docs/acp.md §4).
        intentTrace: session.intentTrace ?? (trace as Record<string, unknown> | null),
        messages: [
          {
            type: 'info',
            severity: 'info',
            content_type: 'plain',
            content: 'This checkout session was canceled.',
          },
        ],
      });
      await this.repo.save(session);
      await this.audit.record(
        session.workspaceId,
        { type: 'protocol_key', id: caller.id },
        'checkout.canceled',
        id,
        {
          from: status,
          reason_code: trace?.reason_code ?? null,
        },
      );
      return this.present(session);
    });
  }

  /** The locked session if this merchant key may see it; otherwise 404 (no existence oracle). */
  async lockVisible(caller: ProtocolKeyPrincipal, id: string): Promise<CheckoutSession> {
    const session = await this.repo.lockById(id);
    if (!session || session.sellerAgentId !== caller.agentId) {
      throw checkoutErrors.notFound(id);
    }
    return session;
  }

  /**
   * lockVisible, with whether each line item's offer is still active read by the same statement
   * (`CheckoutSessionRepository.lockWithOfferStates`): what a complete needs before it pays.
   */
  async lockVisibleWithOffers(
    caller: ProtocolKeyPrincipal,
    id: string,
  ): Promise<{ session: CheckoutSession; offers: Map<string, boolean> }> {
    const found = await this.repo.lockWithOfferStates(id);
    if (!found || found.session.sellerAgentId !== caller.agentId) {
      throw checkoutErrors.notFound(id);
    }
    return found;
  }

  /** The full ACP body of a session as it stands now. */
  async present(
    session: CheckoutSession,
    knownSellerName?: string,
    knownReceiptId?: string | null,
  ): Promise<AcpCheckoutSession> {
    const status = effectiveStatus(session, this.clock.now());
    const sellerName =
      knownSellerName ?? (await this.sellerName(session.workspaceId, session.sellerAgentId));
    const receiptId =
      status === 'completed' && session.intentId
        ? (knownReceiptId ?? (await this.intents.get(session.intentId)).receiptId)
        : null;
    return toAcpSession({ session, status, sellerName, receiptId }, this.config);
  }

  sellerNameOf(session: CheckoutSession): Promise<string> {
    return this.sellerName(session.workspaceId, session.sellerAgentId);
  }

  private async sellerName(workspaceId: string, agentId: string): Promise<string> {
    return (await this.accounts.getAgent(workspaceId, agentId)).name;
  }

  /** Offers for the wanted SKUs; a SKU this seller never published is 400 invalid_item_id. */
  private async offersFor(
    sellerAgentId: string,
    wanted: WantedLine[],
  ): Promise<Map<string, OfferFacts>> {
    const offers = await this.listings.findOffers(
      sellerAgentId,
      wanted.map((w) => w.sku),
    );
    return knownOffers(offers, wanted);
  }
}

/** The offers by SKU; a wanted SKU this seller never published is 400 invalid_item_id. */
function knownOffers(offers: OfferFacts[], wanted: WantedLine[]): Map<string, OfferFacts> {
  const bySku = new Map<string, OfferFacts>(offers.map((o) => [o.sku, o]));
  const unknown = wanted.find((w) => !bySku.has(w.sku));
  if (unknown) {
    throw checkoutErrors.unknownItem(unknown.index, unknown.sku);
  }
  return bySku;
}

/** We publish no discount codes: every code the agent sends gets a warning, and nothing is applied. */
function discountWarnings(body: {
  coupons?: string[];
  discounts?: { codes?: string[] };
}): StoredMessage[] {
  const sent = [
    ...(body.coupons ?? []).map((code, i) => ({ code, param: `$.coupons[${i}]` })),
    ...(body.discounts?.codes ?? []).map((code, i) => ({ code, param: `$.discounts.codes[${i}]` })),
  ];
  return sent.map(({ code, param }) => ({
    type: 'warning',
    code: 'discount_code_invalid',
    severity: 'low',
    param,
    content_type: 'plain',
    content: `Discount code ${code.slice(0, 64)} was not applied: this seller has no discount codes.`,
  }));
}

/** Only fo_digital exists and it always covers every line; accept line-item ids or item ids (docs/acp.md §4). */
function checkSelection(
  options: SelectedFulfillmentOptionDto[],
  lines: { id: string; sku: string }[],
): void {
  const known = new Set(lines.flatMap((l) => [l.id, l.sku]));
  options.forEach((o, i) => {
    if (o.option_id !== DIGITAL_OPTION_ID || o.type !== 'digital') {
      throw checkoutErrors.invalid(
        `$.selected_fulfillment_options[${i}].option_id`,
        `the only fulfillment option is the digital option ${DIGITAL_OPTION_ID}`,
      );
    }
    o.item_ids.forEach((itemId, j) => {
      if (!known.has(itemId)) {
        throw checkoutErrors.invalid(
          `$.selected_fulfillment_options[${i}].item_ids[${j}]`,
          `no line item ${itemId}`,
        );
      }
    });
  });
}
