import { Inject, Injectable } from '@nestjs/common';

import type { CheckoutSession } from '../checkout/checkout-session.entity';
import { CheckoutSessionRepository } from '../checkout/checkout-session.repository';
import type { ProtocolKeyPrincipal } from '../common/auth/principal';
import { commonErrors } from '../common/errors/app-error';
import { APP_CONFIG, AppConfig } from '../config/app.config';
import { OutboxRepository } from '../outbox/outbox.repository';
import { PaymentIntentRepository } from '../payments/payment-intent.repository';
import type { Refund } from '../refunds/refund.entity';
import { RefundRepository } from '../refunds/refund.repository';
import type { OrderEventType } from '../webhooks/webhook-event-types';
import type { AcpOrderResponse } from './dto/order.response';
import { OrderFacts, toAcpOrder } from './order.mapper';

/**
 * ACP orders (docs/webhooks.md "Order webhooks"): the Order of a completed checkout session, its events and
 * its GET. Events are outbox rows written in the caller's transaction (the state change they
 * announce), each with the full Order as it stands then; the webhook pipeline (src/webhooks)
 * delivers them to the order receivers of the merchant key the session was created with.
 */
@Injectable()
export class OrdersService {
  constructor(
    private readonly outbox: OutboxRepository,
    private readonly intents: PaymentIntentRepository,
    private readonly sessions: CheckoutSessionRepository,
    private readonly refunds: RefundRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The session just completed (under its row lock): order_create, then order_update for the
   * digital delivery, which is done at once (the access URL is the order page).
   */
  async emitCompleted(session: CheckoutSession): Promise<void> {
    if (session.status !== 'completed' || !session.orderId) {
      return;
    }
    const orderId = session.orderId;
    await this.emit(session, 'order_create', orderId, { session, refunds: [], fulfilled: false });
    await this.emit(session, 'order_update', `${orderId}:fulfilled`, {
      session,
      refunds: [],
      fulfilled: true,
    });
  }

  /** A refund changed status (requested, succeeded, denied, expired, failed), in its transaction. */
  async emitRefundChanged(refund: Refund): Promise<void> {
    const intent = await this.intents.find(refund.intentId);
    if (!intent || intent.sourceKind !== 'checkout') {
      return;
    }
    const session = await this.sessions.findById(intent.sourceId);
    if (!session || session.status !== 'completed' || !session.orderId) {
      return;
    }
    await this.emit(
      session,
      'order_update',
      `${session.orderId}:${refund.id}:${refund.status}`,
      await this.facts(session),
    );
  }

  /** GET /acp/orders/{id}: for any merchant key of the session's seller; anyone else 404. */
  async getForMerchant(caller: ProtocolKeyPrincipal, orderId: string): Promise<AcpOrderResponse> {
    const session = await this.sessions.findCompletedOrder(orderId, caller.agentId);
    if (!session) {
      throw commonErrors.notFound('order', orderId);
    }
    return toAcpOrder(await this.facts(session), this.config);
  }

  /** The order as it stands now: delivered, with every refund of its payment. */
  private async facts(session: CheckoutSession): Promise<OrderFacts> {
    const refunds = session.intentId ? await this.refunds.allForIntent(session.intentId) : [];
    return { session, refunds, fulfilled: true };
  }

  /**
   * One outbox row per change, unique on (type, subject): its id is the event id every retry of
   * every delivery reuses. protocol_key_id addresses it to the session's merchant key.
   */
  private async emit(
    session: CheckoutSession,
    type: OrderEventType,
    subjectId: string,
    facts: OrderFacts,
  ): Promise<void> {
    await this.outbox.add({
      workspaceId: session.workspaceId,
      agentId: session.sellerAgentId,
      type,
      subjectId,
      data: toAcpOrder(facts, this.config) as unknown as Record<string, unknown>,
      protocolKeyId: session.protocolKeyId,
    });
  }
}
