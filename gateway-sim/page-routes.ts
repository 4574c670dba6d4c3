import { SimConfig } from './core';
import { GatewayEngine } from './engine';
import { SimError } from './errors';
import { json, Router, SimRequest } from './http';
import { SIM_VPAS } from './outcomes';
import {
  authorizePage,
  checkoutPage,
  checkoutScript,
  errorPage,
  linkPage,
  pagesScript,
  pagesStylesheet,
  rupees,
} from './pages';
import { asBody, oneOf, optStr, optVpa } from './validate';

/**
 * What a browser loads: the widget script, the checkout iframe, the authorise page (mandates and
 * Reserve Pay blocks) and the payment link page, plus the JSON posts their buttons make.
 */
export function registerPageRoutes(router: Router, sim: GatewayEngine, config: SimConfig): void {
  router.add('GET', '/v1/checkout.js', () => checkoutScript());
  router.add('GET', '/assets/pages.js', () => pagesScript());
  router.add('GET', '/assets/pages.css', () => pagesStylesheet());

  router.add('GET', '/checkout/embedded', (req) => {
    const q = req.query;
    if (q.get('key_id') !== config.keyId) {
      return errorPage('This key is not known to the gateway.');
    }
    const origin = parentOrigin(q.get('origin'));
    if (!origin) {
      return errorPage('The page that opened the checkout did not say its origin.');
    }
    const order = sim.core.store.order(q.get('order_id') ?? '');
    if (!order) {
      return errorPage('This order does not exist.');
    }
    if (order.wire.token_id !== null) {
      return errorPage('A mandate registration is authorised on its own page.');
    }
    if (order.wire.status === 'paid') {
      return errorPage('This order is already paid.');
    }
    return checkoutPage({
      keyId: config.keyId,
      orderId: order.wire.id,
      amount: order.wire.amount,
      receipt: order.wire.receipt,
      parentOrigin: origin,
      name: (q.get('name') ?? '').slice(0, 100),
      description: (q.get('description') ?? '').slice(0, 255),
    });
  });

  router.add('POST', '/checkout/embedded/pay', async (req) => {
    const body = asBody(req.body);
    if (body.key_id !== config.keyId) {
      throw new SimError(401, 'BAD_REQUEST_ERROR', 'This key is not known to the gateway', {
        field: 'key_id',
      });
    }
    const action = oneOf(body, 'action', ['pay', 'fail'] as const);
    const vpa = optVpa(body) ?? SIM_VPAS.success;
    const r = await sim.checkoutPay(optStr(body, 'order_id', { max: 40 }) ?? '', {
      fail: action === 'fail',
      vpa,
    });
    return json(r.body, 200, r.delayMs);
  });

  router.add('GET', '/authorize/:id', (req) => authorizeView(sim, req));
  router.add('POST', '/authorize/:id', async (req) => {
    const body = asBody(req.body);
    const approve = body.approve === true;
    const vpa = optVpa(body);
    if (req.params.id.startsWith('blk_')) {
      return json(sim.reserve.authorize(req.params.id, { approve, vpa }));
    }
    const { token } = await sim.tokens.authorize(req.params.id, { approve, vpa });
    return json(token);
  });

  router.add('GET', '/l/:id', (req) => {
    const link = sim.core.store.links.has(req.params.id) ? sim.links.link(req.params.id) : null;
    if (!link) {
      return errorPage('This payment link does not exist.', 404);
    }
    return linkPage({
      linkId: link.id,
      amount: link.amount,
      description: link.description,
      referenceId: link.reference_id,
      status: link.status,
    });
  });
  router.add('POST', '/l/:id/pay', async (req) => {
    const body = asBody(req.body);
    const action = oneOf(body, 'action', ['pay', 'fail'] as const);
    const r = await sim.links.pay(req.params.id, {
      fail: action === 'fail',
      vpa: optVpa(body) ?? SIM_VPAS.success,
    });
    return json({ payment_link: r.link, redirect: r.redirect }, 200, r.respondDelayMs);
  });
}

function authorizeView(sim: GatewayEngine, req: SimRequest) {
  const id = req.params.id;
  const date = (sec: number) => new Date(sec * 1000).toISOString().slice(0, 10);
  if (id.startsWith('blk_')) {
    const block = sim.core.store.blocks.has(id) ? sim.reserve.get(id) : null;
    if (!block) {
      return errorPage('This block does not exist.', 404);
    }
    if (block.status !== 'created') {
      return errorPage(`This block is ${block.status}.`);
    }
    return authorizePage({
      target: id,
      heading: `Block ${rupees(block.amount)} with Reserve Pay`,
      rows: [
        ['Block', block.id],
        ['Receipt', block.receipt],
        ['Valid until', date(block.expire_at)],
      ],
      vpa: block.vpa ?? SIM_VPAS.success,
    });
  }
  const token = sim.tokens.registrationToken(id);
  const order = sim.core.store.order(id);
  if (!token || !order) {
    return errorPage('This mandate registration does not exist.', 404);
  }
  if (token.recurring_details.status !== 'initiated') {
    return errorPage(`This mandate is ${token.recurring_details.status}.`);
  }
  return authorizePage({
    target: id,
    heading: 'Approve a UPI AutoPay mandate',
    rows: [
      ['Maximum per debit', rupees(token.max_amount)],
      ['Frequency', token.frequency],
      ['Valid until', date(token.expired_at)],
      ['First debit', rupees(order.wire.amount)],
    ],
    vpa: SIM_VPAS.success,
  });
}

/** The `origin` query of the checkout iframe: an http(s) origin exactly, else null. */
function parentOrigin(raw: string | null): string | null {
  if (!raw) {
    return null;
  }
  try {
    const u = new URL(raw);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === raw ? raw : null;
  } catch {
    return null;
  }
}
