import type {
  GatewayPayment,
  GatewayReserveBlock,
} from '../src/rails/gateway/gateway-client.types';
import { SimCore } from './core';
import { badRequest, notFound } from './errors';
import { SIM_VPAS } from './outcomes';
import { paymentFailedError, Payments } from './payments';
import { copy } from './store';
import { asBody, int, optVpa, str } from './validate';

/**
 * Reserve Pay: single block, multiple debits (DOMAIN.md A.6–A.7). A block is created, the person
 * authorises it (`/authorize/<blk_id>` or the control API) → active + `reserve_pay.block.active`;
 * each debit (≤ amount − debited) is a captured payment on its own order; release gives the rest
 * back (`reserve_pay.block.released`); past expire_at the block reads as expired, rest released.
 */
export class ReservePay {
  constructor(
    private readonly core: SimCore,
    private readonly payments: Payments,
  ) {}

  create(raw: unknown): GatewayReserveBlock {
    const body = asBody(raw);
    const customerId = str(body, 'customer_id', { max: 40 });
    if (!this.core.store.customers.has(customerId)) {
      throw notFound('customer');
    }
    const block: GatewayReserveBlock = {
      id: this.core.ids.next('blk'),
      entity: 'reserve_pay.block',
      customer_id: customerId,
      vpa: optVpa(body) ?? null,
      amount: int(body, 'amount', { min: 100 }),
      debited: 0,
      released: 0,
      status: 'created',
      expire_at: int(body, 'expire_at', { min: this.core.clock.nowSec() + 1, max: 4_102_444_800 }),
      receipt: str(body, 'receipt', { max: 40 }),
      created_at: this.core.clock.nowSec(),
    };
    this.core.store.blocks.set(block.id, block);
    return copy(block);
  }

  get(id: string): GatewayReserveBlock {
    return copy(this.block(id));
  }

  authorize(id: string, answer: { approve: boolean; vpa?: string }): GatewayReserveBlock {
    const block = this.block(id);
    if (block.status !== 'created') {
      throw badRequest(`The block is ${block.status}, not awaiting authorisation`);
    }
    block.vpa = answer.vpa ?? block.vpa ?? SIM_VPAS.success;
    if (answer.approve) {
      block.status = 'active';
      this.core.webhooks.emit([
        { event: 'reserve_pay.block.active', payload: { reserve_pay_block: { entity: block } } },
      ]);
    } else {
      this.releaseRest(block);
    }
    return copy(block);
  }

  async debit(id: string, raw: unknown): Promise<{ payment: GatewayPayment; delayMs: number }> {
    const body = asBody(raw);
    const amount = int(body, 'amount', { min: 100 });
    const receipt = str(body, 'receipt', { max: 40 });
    const block = this.block(id);
    this.checkDebit(block, amount);
    // Taken off the block before the attempt, so a second debit while this one hangs sees less.
    block.debited += amount;
    const order = this.payments.newOrder({ amount, receipt, customerId: block.customer_id });
    const result = await this.payments
      .attempt(order.wire.id, {
        vpa: block.vpa,
        customerId: block.customer_id,
        description: `Reserve Pay debit on ${block.id}`,
      })
      .catch((err: unknown) => {
        block.debited -= amount;
        throw err;
      });
    if (result.failure) {
      block.debited -= amount;
      throw paymentFailedError(result);
    }
    return { payment: result.payment, delayMs: result.respondDelayMs };
  }

  release(id: string): GatewayReserveBlock {
    const block = this.block(id);
    if (block.status !== 'created' && block.status !== 'active') {
      throw badRequest(`The block is ${block.status}`);
    }
    this.releaseRest(block);
    return copy(block);
  }

  private checkDebit(block: GatewayReserveBlock, amount: number): void {
    if (block.status !== 'active') {
      throw badRequest(`The block is ${block.status}, not active`);
    }
    if (amount > block.amount - block.debited) {
      throw badRequest(
        `The amount exceeds what is left on the block (${block.amount - block.debited} paise)`,
        'amount',
      );
    }
  }

  private releaseRest(block: GatewayReserveBlock): void {
    block.status = 'released';
    block.released = block.amount - block.debited;
    this.core.webhooks.emit([
      { event: 'reserve_pay.block.released', payload: { reserve_pay_block: { entity: block } } },
    ]);
  }

  /** The block, expired first when its expire_at has passed (the rest released). */
  private block(id: string): GatewayReserveBlock {
    const block = this.core.store.blocks.get(id);
    if (!block) {
      throw notFound('reserve_pay.block');
    }
    if (
      (block.status === 'created' || block.status === 'active') &&
      this.core.clock.nowSec() >= block.expire_at
    ) {
      block.status = 'expired';
      block.released = block.amount - block.debited;
    }
    return block;
  }
}
