import { GatewayEngine } from './engine';
import { json, Router } from './http';
import { receiptQuery } from './payments';
import { Tokens } from './tokens';

/**
 * The gateway's API (`/v1`, HTTP Basic with the key pair, Idempotency-Key on POSTs) — the part
 * that mirrors the real gateway. docs/gateway-simulator.md "API routes" lists each route.
 */
export function registerApiRoutes(router: Router, sim: GatewayEngine): void {
  const api = { api: true };
  const { payments, tokens, refunds, settlements, links, reserve } = sim;

  // Orders
  router.add(
    'POST',
    '/v1/orders',
    (req) =>
      json(
        Tokens.isRegistration(req.body)
          ? tokens.createRegistrationOrder(req.body)
          : payments.createOrder(req.body),
      ),
    api,
  );
  router.add('GET', '/v1/orders', (req) => json(payments.findOrders(receiptQuery(req.query))), api);
  router.add('GET', '/v1/orders/:id', (req) => json(payments.getOrder(req.params.id)), api);
  router.add(
    'GET',
    '/v1/orders/:id/payments',
    (req) => json(payments.listOrderPayments(req.params.id)),
    api,
  );

  // Payments
  router.add('GET', '/v1/payments/:id', (req) => json(payments.getPayment(req.params.id)), api);
  router.add(
    'POST',
    '/v1/payments/:id/capture',
    (req) => json(payments.capturePayment(req.params.id, req.body)),
    api,
  );
  router.add(
    'POST',
    '/v1/payments/create/recurring',
    async (req) => {
      const r = await tokens.recurringDebit(req.body);
      return json(r.body, 200, r.delayMs);
    },
    api,
  );

  // Refunds
  router.add(
    'POST',
    '/v1/payments/:id/refund',
    (req) => json(refunds.create(req.params.id, req.body)),
    api,
  );
  router.add(
    'GET',
    '/v1/payments/:id/refunds',
    (req) => json(refunds.listOfPayment(req.params.id)),
    api,
  );
  router.add('GET', '/v1/refunds/:id', (req) => json(refunds.get(req.params.id)), api);

  // Customers and tokens
  router.add('POST', '/v1/customers', (req) => json(tokens.createCustomer(req.body)), api);
  router.add('GET', '/v1/customers/:id', (req) => json(tokens.getCustomer(req.params.id)), api);
  router.add(
    'GET',
    '/v1/customers/:id/tokens',
    (req) => json(tokens.listTokens(req.params.id)),
    api,
  );
  router.add(
    'DELETE',
    '/v1/customers/:id/tokens/:tokenId',
    (req) => json(tokens.cancel(req.params.id, req.params.tokenId)),
    api,
  );

  // Settlements
  router.add(
    'GET',
    '/v1/settlements/recon/combined',
    (req) => json(settlements.recon(req.query)),
    api,
  );
  router.add('GET', '/v1/settlements/:id', (req) => json(settlements.get(req.params.id)), api);

  // Payment links
  router.add('POST', '/v1/payment_links', (req) => json(links.create(req.body)), api);
  router.add('GET', '/v1/payment_links/:id', (req) => json(links.get(req.params.id)), api);
  router.add(
    'POST',
    '/v1/payment_links/:id/cancel',
    (req) => json(links.cancel(req.params.id)),
    api,
  );

  // Reserve Pay
  router.add('POST', '/v1/reserve_pay/blocks', (req) => json(reserve.create(req.body)), api);
  router.add('GET', '/v1/reserve_pay/blocks/:id', (req) => json(reserve.get(req.params.id)), api);
  router.add(
    'POST',
    '/v1/reserve_pay/blocks/:id/debits',
    async (req) => {
      const r = await reserve.debit(req.params.id, req.body);
      return json(r.payment, 200, r.delayMs);
    },
    api,
  );
  router.add(
    'POST',
    '/v1/reserve_pay/blocks/:id/release',
    (req) => json(reserve.release(req.params.id)),
    api,
  );
}
