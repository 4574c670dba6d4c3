import { CheckoutSession } from '../../src/checkout/checkout-session.entity';
import { newId } from '../../src/common/ids';
import type { TestApp } from '../support/app';
import type { SeededWorkspace } from '../support/seed';

/**
 * A checkout session row inserted directly (the checkout API is built elsewhere): open
 * (ready_for_payment), sold by the seed seller through its merchant key, one line item,
 * expiring 15 minutes after the test clock's now.
 */
export async function createCheckoutSession(
  t: TestApp,
  ws: SeededWorkspace,
  over: Partial<CheckoutSession> = {},
): Promise<CheckoutSession> {
  const now = t.clock.now();
  const session = Object.assign(new CheckoutSession(), {
    id: newId('cs'),
    workspaceId: ws.workspaceId,
    sellerAgentId: ws.seller.id,
    protocolKeyId: ws.merchantKeyId,
    status: 'ready_for_payment',
    currency: 'inr',
    lineItems: [
      {
        id: 'li_1',
        sku: 'chai-1kg',
        name: 'Assam chai, 1 kg',
        category: 'grocery.tea',
        unit_paise: 45_000,
        quantity: 1,
      },
    ],
    buyer: null,
    messages: [],
    intentId: null,
    orderId: null,
    intentTrace: null,
    createdAt: now,
    updatedAt: now,
    expiresAt: new Date(now.getTime() + 15 * 60_000),
    completedAt: null,
    canceledAt: null,
    ...over,
  });
  await t.db.getRepository(CheckoutSession).save(session);
  return session;
}
