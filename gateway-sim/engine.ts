import { SimClock } from './clock';
import { SimConfig, SimCore } from './core';
import { badRequest } from './errors';
import { IdGenerator } from './ids';
import { PaymentLinks } from './links';
import { OutcomeControl, SIM_VPAS } from './outcomes';
import { AttemptResult, CheckoutSuccess, paymentFailedError, Payments } from './payments';
import { Refunds } from './refunds';
import { ReservePay } from './reserve';
import { Settlements } from './settlements';
import { copy, Store } from './store';
import { Tokens } from './tokens';
import { WebhookDispatcher, WebhookOptions } from './webhooks';

/** The whole simulated gateway: its parts, wired to one shared core. */
export class GatewayEngine {
  readonly core: SimCore;
  readonly payments: Payments;
  readonly tokens: Tokens;
  readonly refunds: Refunds;
  readonly settlements: Settlements;
  readonly links: PaymentLinks;
  readonly reserve: ReservePay;

  constructor(
    config: SimConfig,
    webhookOptions: Omit<WebhookOptions, 'accountId' | 'webhookSecret'>,
    clock: SimClock,
    ids: IdGenerator,
  ) {
    const webhooks = new WebhookDispatcher(
      { ...webhookOptions, accountId: config.accountId, webhookSecret: config.webhookSecret },
      clock,
      ids,
    );
    this.core = new SimCore(config, clock, ids, new Store(), webhooks, new OutcomeControl());
    this.payments = new Payments(this.core);
    this.tokens = new Tokens(this.core, this.payments);
    this.refunds = new Refunds(this.core, this.payments);
    this.settlements = new Settlements(this.core);
    this.links = new PaymentLinks(this.core, this.payments);
    this.reserve = new ReservePay(this.core, this.payments);
  }

  /**
   * A checkout payment on an order, as the widget's Pay / Fail buttons (and `POST /__sim/payments`)
   * make it. Registration orders are paid on their authorise page instead.
   */
  async checkoutPay(
    orderId: string,
    input: { fail?: boolean; outcome?: 'succeed' | 'fail'; vpa?: string | null },
  ): Promise<{ body: CheckoutSuccess; delayMs: number; result: AttemptResult }> {
    const order = this.payments.order(orderId);
    if (order.wire.token_id !== null) {
      throw badRequest(
        'A mandate registration order is authorised on its /authorize page',
        'order_id',
      );
    }
    const fail = input.fail === true || input.outcome === 'fail';
    const result = await this.payments.attempt(orderId, {
      vpa: input.vpa ?? SIM_VPAS.success,
      ...(fail
        ? { outcome: { kind: 'fail', reason: 'payment_failed' } as const }
        : input.outcome === 'succeed'
          ? { outcome: { kind: 'succeed' } as const }
          : {}),
    });
    if (result.failure) {
      throw paymentFailedError(result);
    }
    return { body: this.payments.checkoutResult(result), delayMs: result.respondDelayMs, result };
  }

  /** Forgets everything except the configuration; hung calls end with a server error. */
  reset(): void {
    this.core.generation += 1;
    this.core.outcomes.reset();
    this.core.store.clear();
    this.core.webhooks.reset();
    this.core.clock.reset();
    this.refunds.setMode('processed');
    this.settlements.reset();
  }

  /** Everything, for debugging (`GET /__sim/state`). */
  snapshot() {
    const s = this.core.store;
    const values = <T>(m: Map<string, { wire: T }>) => [...m.values()].map((r) => r.wire);
    return copy({
      now_ms: this.core.clock.nowMs(),
      orders: values(s.orders),
      payments: values(s.payments),
      refunds: values(s.refunds),
      customers: [...s.customers.values()],
      tokens: [...s.tokens.values()],
      payment_links: [...s.links.values()],
      reserve_pay_blocks: [...s.blocks.values()],
      settlements: [...s.settlements.values()],
      next_outcomes: this.core.outcomes.queued(),
      hanging: this.core.outcomes.hangingCount(),
      refund_mode: this.refunds.getMode(),
      webhooks: {
        url: this.core.webhooks.getUrl(),
        mode: this.core.webhooks.getMode(),
        pending: this.core.webhooks.pending(),
      },
    });
  }
}
